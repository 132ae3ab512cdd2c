import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { auditLedger } from '../../src/audit/ledger-audit';
import { connectTestDatabase, withClient, withScratchDatabase } from '../support/db';
import { type MediumUser, newUser, reverseTransfer, transferBatch, transferFunds } from './support/factories';

/**
 * Limits in the money transaction (src/limits/sql, hooked into transfer_funds and transfer_funds_batch),
 * against the run's PostgreSQL. The profile is this session's payments.limits, as the service sets it
 * on each of its connections, so these tests change nothing for the others; time is payments.limits_now.
 */
describe('limits in the money transaction', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());
  afterEach(async () => {
    await db.query(`SELECT set_config('payments.limits', '', false), set_config('payments.limits_now', '', false)`);
  });

  const profile = (settings: Record<string, unknown>) =>
    db.query(`SELECT set_config('payments.limits', $1, false)`, [
      JSON.stringify({ timeZone: 'Asia/Kolkata', ...settings }),
    ]);
  const at = (time: string) => db.query(`SELECT set_config('payments.limits_now', $1, false)`, [time]);
  const codes = (rows: { result: { code: string } }[]) => rows.map((row) => row.result.code);
  const usage = async (user: MediumUser) =>
    (
      await db.query<{ day: string; amount: string; count: number }>(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, amount::text, count FROM limits_daily_usage WHERE user_id = $1 ORDER BY day`,
        [user.id],
      )
    ).rows;
  const pair = async (balance = '1000') => [await newUser(db, balance, 'l'), await newUser(db, '0', 'l')];

  describe('daily amount', () => {
    it('passes just under and at the cap inside one batch, and refuses just over it with the limit member', async () => {
      await profile({ dailyAmountMax: '100' });
      const [alice, bob] = await pair();
      const rows = await transferBatch(db, [
        { sender: alice, receiverUpiId: bob.upiId, amount: '99.9999' },
        { sender: alice, receiverUpiId: bob.upiId, amount: '0.0002' },
        { sender: alice, receiverUpiId: bob.upiId, amount: '0.0001' },
      ]);
      expect(codes(rows)).toEqual(['completed', 'limit-exceeded', 'completed']);
      expect(rows[1].result.data).toEqual({
        limit: {
          name: 'daily-amount',
          max: '100.0000',
          used: '99.9999',
          remaining: '0.0001',
          resetsAt: expect.any(String),
        },
      });
      const over = await transferFunds(db, alice, bob.upiId, '0.0001');
      expect(over.result.code).toBe('limit-exceeded');
      expect(over.result.data).toMatchObject({ limit: { used: '100.0000', remaining: '0.0000' } });
      expect(await usage(alice)).toEqual([{ day: expect.any(String), amount: '100.0000', count: 2 }]);
      // Nothing of a refused transfer moved.
      const { rows: balance } = await db.query('SELECT balance::text AS b FROM users WHERE id = $1', [alice.id]);
      expect(balance[0].b).toBe('900.0000');
    });

    it('counts the single-item path too: at the cap passes, one paisa more does not', async () => {
      await profile({ dailyAmountMax: '50' });
      const [alice, bob] = await pair();
      expect((await transferFunds(db, alice, bob.upiId, '49.99')).result.code).toBe('completed');
      expect((await transferFunds(db, alice, bob.upiId, '0.02')).result.code).toBe('limit-exceeded');
      expect((await transferFunds(db, alice, bob.upiId, '0.01')).result.code).toBe('completed');
      expect((await transferFunds(db, alice, bob.upiId, '0.01')).result.code).toBe('limit-exceeded');
    });
  });

  it('daily count: the 2nd of 2 passes, the 3rd is refused, in a batch and alone', async () => {
    await profile({ dailyCountMax: 2 });
    const [alice, bob] = await pair();
    const rows = await transferBatch(db, [
      { sender: alice, receiverUpiId: bob.upiId, amount: '1.0000' },
      { sender: alice, receiverUpiId: bob.upiId, amount: '1.0000' },
      { sender: alice, receiverUpiId: bob.upiId, amount: '1.0000' },
    ]);
    expect(codes(rows)).toEqual(['completed', 'completed', 'limit-exceeded']);
    expect(rows[2].result.data).toMatchObject({ limit: { name: 'daily-count', max: '2', used: '2', remaining: '0' } });
    expect((await transferFunds(db, alice, bob.upiId, '1')).result.code).toBe('limit-exceeded');
    // The receiver's own count is untouched: receiving is not sending.
    expect((await transferFunds(db, bob, alice.upiId, '1')).result.code).toBe('completed');
  });

  it('day boundary in BUSINESS_TIME_ZONE: 23:59:59.999 local counts for that day, 00:00 local starts a new one', async () => {
    await profile({ dailyCountMax: 1 });
    const [alice, bob] = await pair();
    await at('2026-11-24T23:59:59.999+05:30');
    expect((await transferFunds(db, alice, bob.upiId, '1')).result.code).toBe('completed');
    const refused = await transferFunds(db, alice, bob.upiId, '1');
    expect(refused.result.code).toBe('limit-exceeded');
    expect(refused.result.data).toMatchObject({ limit: { resetsAt: '2026-11-24T18:30:00.000Z' } });
    await at('2026-11-25T00:00:00.000+05:30');
    expect((await transferFunds(db, alice, bob.upiId, '1')).result.code).toBe('completed');
    expect(await usage(alice)).toEqual([
      { day: '2026-11-24', amount: '1.0000', count: 1 },
      { day: '2026-11-25', amount: '1.0000', count: 1 },
    ]);
  });

  it('cooling period: a new sender may move up to the amount in its first hours, an older one is not bound', async () => {
    await profile({ newUserHours: 24, newUserAmountMax: '50' });
    const [fresh, bob] = await pair();
    const older = await newUser(db, '1000', 'l');
    await db.query(`UPDATE users SET created_at = now() - interval '24 hours 1 minute' WHERE id = $1`, [older.id]);
    await db.query(`UPDATE users SET created_at = now() - interval '23 hours 59 minutes' WHERE id = $1`, [fresh.id]);
    expect((await transferFunds(db, fresh, bob.upiId, '49.9999')).result.code).toBe('completed');
    expect((await transferFunds(db, fresh, bob.upiId, '0.0001')).result.code).toBe('completed');
    const over = await transferFunds(db, fresh, bob.upiId, '0.0001');
    expect(over.result.code).toBe('limit-exceeded');
    expect(over.result.data).toMatchObject({ limit: { name: 'new-user-amount', max: '50.0000', used: '50.0000' } });
    expect((await transferFunds(db, older, bob.upiId, '500')).result.code).toBe('completed');
  });

  it('cooling period: a reversal the new user sends back does not count toward its new-user amount (batch path)', async () => {
    await profile({ newUserHours: 24, newUserAmountMax: '50' });
    const [fresh, bob] = await pair();
    const older = await newUser(db, '1000', 'l');
    await db.query(`UPDATE users SET created_at = now() - interval '25 hours' WHERE id = $1`, [older.id]);
    const received = await transferFunds(db, older, fresh.upiId, '40.0000');
    const reversal = await reverseTransfer(db, fresh, received.result.data.referenceId, '40.0000');
    expect(reversal.result.code).toBe('completed');
    // The reversal moved 40 out of the new account; only transfers count, so all 50 are still free.
    const rows = await transferBatch(db, [
      { sender: fresh, receiverUpiId: bob.upiId, amount: '50.0000' },
      { sender: fresh, receiverUpiId: bob.upiId, amount: '0.0001' },
    ]);
    expect(codes(rows)).toEqual(['completed', 'limit-exceeded']);
    expect(rows[1].result.data).toMatchObject({ limit: { name: 'new-user-amount', max: '50.0000', used: '50.0000' } });
  });

  it('overrides: a per-user value replaces the profile, NULL goes back to it; without a profile an override still binds', async () => {
    await profile({ dailyCountMax: 1 });
    const [alice, bob] = await pair();
    await db.query(`INSERT INTO limit_overrides (user_id, daily_count_max) VALUES ($1, 3)`, [alice.id]);
    const rows = await transferBatch(
      db,
      Array.from({ length: 4 }, () => ({ sender: alice, receiverUpiId: bob.upiId, amount: '1.0000' })),
    );
    expect(codes(rows)).toEqual(['completed', 'completed', 'completed', 'limit-exceeded']);
    await db.query(`UPDATE limit_overrides SET daily_count_max = NULL WHERE user_id = $1`, [alice.id]);
    const back = await transferFunds(db, alice, bob.upiId, '1');
    expect(back.result.data).toMatchObject({ limit: { name: 'daily-count', max: '1', used: '3' } });

    await profile({});
    const [carol, dave] = await pair();
    await db.query(`INSERT INTO limit_overrides (user_id, daily_amount_max) VALUES ($1, 10)`, [carol.id]);
    expect((await transferFunds(db, carol, dave.upiId, '10')).result.code).toBe('completed');
    expect((await transferFunds(db, carol, dave.upiId, '0.0001')).result.code).toBe('limit-exceeded');
  });

  it('replays a limit-exceeded outcome under its key, even once the limit would allow it', async () => {
    await profile({ dailyAmountMax: '10' });
    const [alice, bob] = await pair();
    const key = randomUUID();
    const first = await transferFunds(db, alice, bob.upiId, '11.0000', key);
    expect(first).toMatchObject({ result: { code: 'limit-exceeded' }, replayed: false });
    await profile({ dailyAmountMax: '1000' });
    const again = await transferFunds(db, alice, bob.upiId, '11.0000', key);
    expect(again.replayed).toBe(true);
    expect(again.result).toEqual(first.result);
    const batched = await transferBatch(db, [{ sender: alice, receiverUpiId: bob.upiId, amount: '11.0000', key }]);
    expect(batched[0]).toEqual({ result: first.result, replayed: true });
    const { rows } = await db.query(
      `SELECT status, response_status FROM idempotency_keys WHERE owner_upi_id = lower($1) AND idempotency_key = $2`,
      [alice.upiId, key],
    );
    expect(rows).toEqual([{ status: 'FAILED', response_status: 422 }]);
  });

  it('LIMITS_PROFILE=none (no session setting): no limit applies and no usage is written', async () => {
    const [alice, bob] = await pair('100000');
    const rows = await transferBatch(
      db,
      Array.from({ length: 25 }, () => ({ sender: alice, receiverUpiId: bob.upiId, amount: '4000.0000' })),
    );
    expect(new Set(codes(rows))).toEqual(new Set(['completed']));
    expect(await usage(alice)).toEqual([]);
  });

  it('the admin actions log refuses UPDATE, DELETE and TRUNCATE', async () => {
    const [alice] = await pair();
    await db.query(
      `INSERT INTO admin_actions (user_id, action, reason, admin_upi_id) VALUES ($1, 'FREEZE', 'medium', 'admin@medium')`,
      [alice.id],
    );
    await expect(
      db.query(`UPDATE admin_actions SET reason = 'rewritten' WHERE user_id = $1`, [alice.id]),
    ).rejects.toThrow(/append-only: UPDATE/);
    await expect(db.query(`DELETE FROM admin_actions WHERE user_id = $1`, [alice.id])).rejects.toThrow(
      /append-only: DELETE/,
    );
    await expect(db.query(`TRUNCATE admin_actions`)).rejects.toThrow(/append-only: TRUNCATE/);
    const { rows } = await db.query(`SELECT reason FROM admin_actions WHERE user_id = $1`, [alice.id]);
    expect(rows).toEqual([{ reason: 'medium' }]);
  });
});

describe('the admin actions log in the audit', () => {
  it('is ok with the append-only guard on, and a finding once the guard is disabled', async () => {
    await withScratchDatabase(async (url) => {
      await withClient(url, async (client) => {
        await client.query(
          `INSERT INTO admin_actions (user_id, action, admin_upi_id) VALUES (1, 'LIMITS', 'a@medium')`,
        );
        const clean = await auditLedger(client);
        expect([clean.ok, clean.adminActionsLog]).toEqual([true, { appendOnly: true, actions: 1 }]);
        await client.query(`ALTER TABLE admin_actions DISABLE TRIGGER tr_admin_actions_append_only`);
        const open = await auditLedger(client);
        expect([open.ok, open.adminActionsLog]).toEqual([false, { appendOnly: false, actions: 1 }]);
      });
    });
  });
});
