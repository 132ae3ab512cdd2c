import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { connectTestDatabase } from '../support/db';
import {
  depositFunds,
  type MediumUser,
  type MovementRow,
  newUser,
  reverseTransfer,
  transferFunds,
} from './support/factories';
import { waitForBackendBlockedBy } from './support/locks';

/**
 * The idempotency record of a movement is written once, complete, by idempotency_finish: the
 * claim only takes the key's lock and reads. Counted in this session's pg_stat_xact_user_tables,
 * so other test files writing at the same time cannot disturb the numbers.
 */
describe('idempotency record', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  /**
   * Runs `movement` in a transaction of its own; returns its outcome and its writes to idempotency_keys.
   * The view also holds the session's counts not yet flushed; nothing is flushed inside a transaction.
   */
  async function counted(movement: () => Promise<MovementRow>) {
    const writes = async () =>
      (
        await db.query<{ inserts: number; updates: number }>(
          // Summed over the table's partitions, where the rows are.
          `SELECT coalesce(sum(n_tup_ins), 0)::int AS inserts, coalesce(sum(n_tup_upd), 0)::int AS updates
           FROM pg_stat_xact_user_tables
           WHERE relid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'idempotency_keys'::regclass)`,
        )
      ).rows[0];
    await db.query('BEGIN');
    try {
      const before = await writes();
      const outcome = await movement();
      const after = await writes();
      await db.query('COMMIT');
      return { outcome, writes: { inserts: after.inserts - before.inserts, updates: after.updates - before.updates } };
    } catch (error) {
      await db.query('ROLLBACK');
      throw error;
    }
  }

  const balance = async (user: MediumUser) =>
    (await db.query<{ b: string }>('SELECT balance::text AS b FROM users WHERE id = $1', [user.id])).rows[0].b;

  it.each([
    ['a completed transfer', '5.0000', 'completed'],
    ['a refused transfer', '500.0000', 'insufficient-balance'],
  ])('%s inserts its record once and never updates it', async (_case, amount, code) => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const key = randomUUID();
    const { outcome, writes } = await counted(() => transferFunds(db, alice, bob.upiId, amount, key));
    expect(outcome.result.code).toBe(code);
    expect(writes).toEqual({ inserts: 1, updates: 0 });
    const stored = await db.query(
      `SELECT status, response_status, outcome->>'code' AS code FROM idempotency_keys
       WHERE owner_upi_id = lower($1) AND idempotency_key = $2`,
      [alice.upiId, key],
    );
    expect(stored.rows).toEqual([
      { status: code === 'completed' ? 'SUCCESS' : 'FAILED', response_status: code === 'completed' ? 201 : 422, code },
    ]);
    const replay = await counted(() => transferFunds(db, alice, bob.upiId, amount, key));
    expect(replay.outcome).toEqual({ result: outcome.result, replayed: true });
    expect(replay.writes).toEqual({ inserts: 0, updates: 0 });
  });

  it('a deposit and a reversal insert their records once too', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const deposit = await counted(() => depositFunds(db, 'medium-admin@medium', alice, '10.0000'));
    expect(deposit.outcome.result.code).toBe('completed');
    expect(deposit.writes).toEqual({ inserts: 1, updates: 0 });

    const transfer = await transferFunds(db, alice, bob.upiId, '30.0000');
    const reversal = await counted(() => reverseTransfer(db, bob, transfer.result.data.referenceId, '10.0000'));
    expect(reversal.outcome.result.code).toBe('completed');
    expect(reversal.writes).toEqual({ inserts: 1, updates: 0 });
    expect([await balance(alice), await balance(bob)]).toEqual(['90.0000', '20.0000']);
  });

  describe('twins', () => {
    let twins: Client[];
    beforeEach(async () => (twins = await Promise.all([1, 2, 3, 4].map(() => connectTestDatabase()))));
    afterEach(() => Promise.all(twins.map((twin) => twin.end())));

    const pidOf = async (client: Client) =>
      (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;

    it('run once: the others wait for the first to commit, then replay its outcome', async () => {
      const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
      const key = randomUUID();
      const [first, ...others] = twins;
      await first.query('BEGIN');
      const executed = await transferFunds(first, alice, bob.upiId, '7.0000', key);
      const pending = others.map((twin) => transferFunds(twin, alice, bob.upiId, '7.0000', key));
      const firstPid = await pidOf(first);
      await waitForBackendBlockedBy(db, firstPid, 10_000);
      await first.query('COMMIT');
      const replays = await Promise.all(pending);
      expect(executed.replayed).toBe(false);
      for (const replay of replays) expect(replay).toEqual({ result: executed.result, replayed: true });
      expect([await balance(alice), await balance(bob)]).toEqual(['93.0000', '7.0000']);
      const rows = await db.query(
        'SELECT count(*)::int AS n FROM idempotency_keys WHERE owner_upi_id = lower($1) AND idempotency_key = $2',
        [alice.upiId, key],
      );
      expect(rows.rows[0].n).toBe(1);
    });

    it('started together without a held transaction, move the money once', async () => {
      const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
      const key = randomUUID();
      const results = await Promise.all(twins.map((twin) => transferFunds(twin, alice, bob.upiId, '9.0000', key)));
      expect(results.filter((r) => !r.replayed)).toHaveLength(1);
      for (const r of results) expect(r.result).toEqual(results[0].result);
      expect([await balance(alice), await balance(bob)]).toEqual(['91.0000', '9.0000']);
    });

    it('run the waiting one afresh when the first rolls back', async () => {
      const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
      const key = randomUUID();
      const [first, second] = twins;
      await first.query('BEGIN');
      await transferFunds(first, alice, bob.upiId, '4.0000', key);
      const pending = transferFunds(second, alice, bob.upiId, '4.0000', key);
      await waitForBackendBlockedBy(db, await pidOf(first), 10_000);
      await first.query('ROLLBACK');
      const afresh = await pending;
      expect(afresh.replayed).toBe(false);
      expect(afresh.result.code).toBe('completed');
      expect([await balance(alice), await balance(bob)]).toEqual(['96.0000', '4.0000']);
    });

    it('answer 55P03 after 2 s while the first is still in flight, and change nothing', async () => {
      const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
      const key = randomUUID();
      const [first, second] = twins;
      await first.query('BEGIN');
      await transferFunds(first, alice, bob.upiId, '4.0000', key);
      const started = Date.now();
      const failure = await transferFunds(second, alice, bob.upiId, '4.0000', key).then(
        () => 'ran',
        (error: { code?: string }) => error.code,
      );
      expect(failure).toBe('55P03');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      await first.query('ROLLBACK');
      expect(await balance(alice)).toBe('100.0000');
      // The claim's 2 s limit ends with it: the session's own lock_timeout is what it was.
      expect((await second.query('SHOW lock_timeout')).rows[0].lock_timeout).toBe('0');
    });
  });
});
