import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { requestHash } from '../../src/idempotency/idempotency-key';
import { connectTestDatabase } from '../support/db';
import { type MediumUser, newUser, transferFunds } from './support/factories';
import { waitForBackendBlockedBy } from './support/locks';

/**
 * An idempotency record is keyed, in its day's partition, by a unique index on the 16-byte digest
 * of its owner and key (src/idempotency/sql/idempotency_key_digest.sql); the texts stay in the row
 * and every lookup compares them. The index is the backstop against a second record of one
 * (owner, key) written without the key's lock; the request id is kept as a uuid and replayed as text.
 */
describe('idempotency records by digest', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  const balance = async (user: MediumUser) =>
    (await db.query<{ b: string }>('SELECT balance::text AS b FROM users WHERE id = $1', [user.id])).rows[0].b;

  /** The indexes of each partition of idempotency_keys, as `unique definition`. */
  const partitionIndexes = async (client: Client) =>
    (
      await client.query<{ partition: string; indexes: string[] }>(
        `SELECT c.relname AS partition,
                array_agg(CASE WHEN x.indisunique THEN 'unique ' ELSE '' END || pg_get_indexdef(x.indexrelid)
                          ORDER BY x.indexrelid) FILTER (WHERE x.indexrelid IS NOT NULL) AS indexes
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid LEFT JOIN pg_index x ON x.indrelid = c.oid
         WHERE i.inhparent = 'idempotency_keys'::regclass GROUP BY c.relname ORDER BY c.relname`,
      )
    ).rows;

  const digestIndex = (partition: string) =>
    `unique CREATE UNIQUE INDEX ${partition}_key_digest ON public.${partition} ` +
    `USING btree (idempotency_key_digest((owner_upi_id)::text, (idempotency_key)::text))`;

  it('gives every day, converted or made by ensure_partitions, one unique index: on the digest', async () => {
    const live = await partitionIndexes(db);
    expect(live.length).toBeGreaterThan(0);
    for (const { partition, indexes } of live) expect(indexes).toEqual([digestIndex(partition)]);
    // A day made now, in a transaction rolled back (other test files share the database).
    await db.query('BEGIN');
    try {
      expect(
        (await db.query(`SELECT ensure_partitions('idempotency_keys', '2031-01-01Z', '2031-01-02Z') AS n`)).rows,
      ).toEqual([{ n: 1 }]);
      const made = (await partitionIndexes(db)).find((p) => p.partition === 'idempotency_keys_p20310101');
      expect(made?.indexes).toEqual([digestIndex('idempotency_keys_p20310101')]);
    } finally {
      await db.query('ROLLBACK');
    }
  });

  it('is the backstop: a second record of one owner and key is refused, another owner or key is stored', async () => {
    const key = randomUUID();
    const insert = (owner: string, idempotencyKey: string) =>
      db.query(
        `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status)
         VALUES ($1, $2, 'by-hand', 'PROCESSING')`,
        [owner, idempotencyKey],
      );
    await db.query('BEGIN');
    try {
      await insert('alice@digest', key);
      await insert('bob@digest', key);
      await insert('alice@digest', `${key}-2`);
      await db.query('SAVEPOINT twin');
      const refused = await insert('alice@digest', key).then(
        () => null,
        (error: { code?: string; constraint?: string }) => ({ code: error.code, constraint: error.constraint }),
      );
      expect(refused).toEqual({
        code: '23505',
        constraint: expect.stringMatching(/^idempotency_keys_p\d{8}_key_digest$/),
      });
      await db.query('ROLLBACK TO SAVEPOINT twin');
      const stored = await db.query(
        `SELECT owner_upi_id FROM idempotency_keys WHERE idempotency_key IN ($1, $2) ORDER BY owner_upi_id, idempotency_key`,
        [key, `${key}-2`],
      );
      expect(stored.rows.map((row) => row.owner_upi_id)).toEqual(['alice@digest', 'alice@digest', 'bob@digest']);
    } finally {
      await db.query('ROLLBACK');
    }
  });

  it('stops a movement whose key a writer without the lock recorded meanwhile: 23505, nothing moves', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const key = randomUUID();
    const [twin, mover] = await Promise.all([connectTestDatabase(), connectTestDatabase()]);
    try {
      await twin.query('BEGIN');
      await twin.query(
        `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status)
         VALUES (lower($1), $2, 'in-flight', 'PROCESSING')`,
        [alice.upiId, key],
      );
      // The claim sees no record yet; the movement's insert waits on the twin's entry in the index.
      const pending = transferFunds(mover, alice, bob.upiId, '5.0000', key).then(
        () => 'ran',
        (error: { code?: string; constraint?: string }) => `${error.code} ${error.constraint}`,
      );
      const twinPid = (await twin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await waitForBackendBlockedBy(db, twinPid, 10_000);
      await twin.query('COMMIT');
      expect(await pending).toMatch(/^23505 idempotency_keys_p\d{8}_key_digest$/);
    } finally {
      await Promise.all([twin.end(), mover.end()]);
    }
    expect([await balance(alice), await balance(bob)]).toEqual(['100.0000', '0.0000']);
  });

  it('lets two owners use one key at once: both movements run, each replays its own', async () => {
    const [alice, bob, carol] = [await newUser(db, '100'), await newUser(db, '100'), await newUser(db)];
    const key = randomUUID();
    const twins = await Promise.all([connectTestDatabase(), connectTestDatabase()]);
    try {
      const [first, second] = await Promise.all([
        transferFunds(twins[0], alice, carol.upiId, '10.0000', key),
        transferFunds(twins[1], bob, carol.upiId, '20.0000', key),
      ]);
      expect([first.result.code, first.replayed, second.result.code, second.replayed]).toEqual([
        'completed',
        false,
        'completed',
        false,
      ]);
      expect(await transferFunds(db, bob, carol.upiId, '20.0000', key)).toEqual({
        result: second.result,
        replayed: true,
      });
      expect(await transferFunds(db, alice, carol.upiId, '10.0000', key)).toEqual({
        result: first.result,
        replayed: true,
      });
    } finally {
      await Promise.all(twins.map((twin) => twin.end()));
    }
    expect(await balance(carol)).toBe('30.0000');
  });

  describe('the request id', () => {
    const transfer = (sender: MediumUser, receiverUpiId: string, amount: string, key: string, requestId: string) =>
      db
        .query(
          `SELECT result, replayed FROM transfer_funds(lower($1), $2, $3, $1, $4, $5, NULL, gen_random_uuid(),
             gen_random_uuid(), jsonb_build_object('requestId', $6::text, 'instance', '/api/v1/transactions'))`,
          [
            sender.upiId,
            key,
            requestHash({
              senderUpiId: sender.upiId.toLowerCase(),
              receiverUpiId: receiverUpiId.toLowerCase(),
              amount,
              note: null,
            }),
            receiverUpiId,
            amount,
            requestId,
          ],
        )
        .then((result) => result.rows[0] as { result: Record<string, unknown>; replayed: boolean });

    const stored = async (owner: MediumUser, key: string) =>
      (await db.query(`SELECT outcome, request_id FROM idempotency_record(lower($1), $2)`, [owner.upiId, key])).rows;

    it.each([
      ['a completed transfer', '5.0000', 'completed'],
      ['a refused one', '500.0000', 'insufficient-balance'],
    ])('of %s is kept as a uuid and replayed as the same text', async (_case, amount, code) => {
      const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
      const [key, requestId] = [randomUUID(), randomUUID()];
      const first = await transfer(alice, bob.upiId, amount, key, requestId);
      expect(first).toMatchObject({ result: { code, requestId, instance: '/api/v1/transactions' }, replayed: false });
      const [record] = await stored(alice, key);
      expect(record.request_id).toBe(requestId);
      expect(record.outcome).not.toHaveProperty('requestId');
      // Another request id on the retry: the first one's is what the replay answers.
      const replay = await transfer(alice, bob.upiId, amount, key, randomUUID());
      expect(replay).toEqual({ result: first.result, replayed: true });
      expect(JSON.stringify(replay.result)).toBe(JSON.stringify(first.result));
    });

    it.each([
      ['not a UUID', 'medium'],
      ['a UUID in capitals', randomUUID().toUpperCase()],
    ])('that is %s stays in the outcome, as it came', async (_case, requestId) => {
      const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
      const key = randomUUID();
      const first = await transfer(alice, bob.upiId, '1.0000', key, requestId);
      expect(first.result.requestId).toBe(requestId);
      const [record] = await stored(alice, key);
      expect(record).toMatchObject({ request_id: null, outcome: { requestId } });
      expect(await transfer(alice, bob.upiId, '1.0000', key, randomUUID())).toEqual({
        result: first.result,
        replayed: true,
      });
    });
  });
});
