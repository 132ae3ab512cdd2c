import { Client } from 'pg';
import { connectTestDatabase } from '../support/db';
import { newUser, transferFunds } from './support/factories';
import { waitForBackendBlockedBy } from './support/locks';

/** The transfer rules in SQL, against the run's PostgreSQL, without HTTP. */
describe('transfer_funds', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  const balance = async (id: string) =>
    (await db.query<{ b: string }>('SELECT balance::text AS b FROM users WHERE id = $1', [id])).rows[0].b;

  it('moves money and answers completed with the transaction as data (no HTTP text)', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const { result, replayed } = await transferFunds(db, alice, bob.upiId, '40.5000');
    expect(replayed).toBe(false);
    expect(result).toEqual({
      code: 'completed',
      at: expect.stringMatching(/Z$/),
      requestId: 'medium',
      instance: '/medium',
      data: expect.objectContaining({ amount: '40.5000', senderUpiId: alice.upiId, receiverUpiId: bob.upiId }),
    });
    expect([await balance(alice.id), await balance(bob.id)]).toEqual(['59.5000', '40.5000']);
  });

  it.each([
    ['self-transfer', 'self', {}],
    ['user-not-found', 'ghost', { upiId: 'ghost@medium' }],
    ['insufficient-balance', 'poor', { available: '10.0000', required: '10.0001' }],
  ])('answers %s with its arguments and changes nothing', async (code, receiver, data) => {
    const alice = await newUser(db, '10');
    const bob = await newUser(db);
    const receiverUpiId =
      receiver === 'self' ? alice.upiId.toUpperCase() : receiver === 'ghost' ? 'ghost@medium' : bob.upiId;
    const { result } = await transferFunds(db, alice, receiverUpiId, '10.0001');
    expect(result.code).toBe(code);
    expect(result.data).toEqual(data);
    expect(await balance(alice.id)).toBe('10.0000');
  });

  it('replays the stored outcome for the same key and request; key-reused (not stored) for another', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const first = await transferFunds(db, alice, bob.upiId, '1.0000', 'medium-key');
    const again = await transferFunds(db, alice, bob.upiId, '1.0000', 'medium-key');
    const other = await transferFunds(db, alice, bob.upiId, '2.0000', 'medium-key');
    expect(again).toEqual({ result: first.result, replayed: true });
    expect(other).toEqual({ result: { code: 'key-reused' }, replayed: false });
    expect(await balance(alice.id)).toBe('99.0000');
  });

  describe('lock order', () => {
    // Accounts are locked by lower-cased UPI ID in byte order, whoever sends. Holding the account
    // that comes second, a transfer from it must already hold the first one while it waits: with
    // the sender locked first instead, it would wait holding nothing. Deterministic, no race.
    it('locks the account first in UPI ID order first, whichever is the sender', async () => {
      const first = await newUser(db, '100', 'a');
      const second = await newUser(db, '100', 'z');
      const holder = await connectTestDatabase();
      const transfer = await connectTestDatabase();
      const probe = await connectTestDatabase();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT (account_locked($1)).id', [second.id]);
        const holderPid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
        const pending = transferFunds(transfer, second, first.upiId, '5.0000');
        await waitForBackendBlockedBy(db, holderPid, 20_000);
        await probe.query('BEGIN');
        await probe.query("SET LOCAL lock_timeout = '100ms'");
        const probed = await probe.query('SELECT (account_locked($1)).id', [first.id]).then(
          () => 'free',
          (error: { code?: string }) => error.code,
        );
        await probe.query('ROLLBACK');
        expect(probed).toBe('55P03');
        await holder.query('ROLLBACK');
        expect((await pending).result.code).toBe('completed');
      } finally {
        await Promise.all([holder.end(), transfer.end(), probe.end()]);
      }
    });

    // A row lock is a WAL record and a dirtied page per account per movement; the account lock
    // (src/ledger/sql/account_lock.sql) is PostgreSQL's memory only. Held while the transfer
    // waits for the second account, the first one's row is still free to row-lock.
    it('holds accounts without row locks', async () => {
      const first = await newUser(db, '100', 'a');
      const second = await newUser(db, '100', 'z');
      const [holder, transfer, probe] = [
        await connectTestDatabase(),
        await connectTestDatabase(),
        await connectTestDatabase(),
      ];
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT (account_locked($1)).id', [second.id]);
        const holderPid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
        const pending = transferFunds(transfer, second, first.upiId, '5.0000');
        await waitForBackendBlockedBy(db, holderPid, 20_000);
        await probe.query('BEGIN');
        const rowLocked = await probe.query('SELECT id FROM users WHERE id = $1 FOR UPDATE NOWAIT', [first.id]).then(
          () => 'free',
          (error: { code?: string }) => error.code,
        );
        await probe.query('ROLLBACK');
        expect(rowLocked).toBe('free');
        await holder.query('ROLLBACK');
        expect((await pending).result.code).toBe('completed');
      } finally {
        await Promise.all([holder.end(), transfer.end(), probe.end()]);
      }
    });

    it('opposite transfers queued behind a held account both complete, without deadlock', async () => {
      const a = await newUser(db, '100', 'a');
      const b = await newUser(db, '100', 'z');
      const holder = await connectTestDatabase();
      const [one, two] = [await connectTestDatabase(), await connectTestDatabase()];
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT (account_locked($1)).id', [a.id]);
        const holderPid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
        const ab = transferFunds(one, a, b.upiId, '7.0000');
        const ba = transferFunds(two, b, a.upiId, '3.0000');
        await waitForBackendBlockedBy(db, holderPid, 20_000);
        await holder.query('ROLLBACK');
        const results = await Promise.all([ab, ba]);
        expect(results.map((r) => r.result.code)).toEqual(['completed', 'completed']);
        expect([await balance(a.id), await balance(b.id)]).toEqual(['96.0000', '104.0000']);
      } finally {
        await Promise.all([holder.end(), one.end(), two.end()]);
      }
    });
  });
});
