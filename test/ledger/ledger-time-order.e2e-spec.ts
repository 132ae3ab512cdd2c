import type { Client } from 'pg';
import { waitForBackendBlockedBy } from '../medium/support/locks';
import { uniqueUpiId } from '../support/api-client';
import { connectTestDatabase } from '../support/db';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Statements and balance history read an account's entries in time order, so an account's entries
 * must carry times in the order they commit. A transfer that starts first but gets its locks later
 * must not be stamped earlier than one that committed on the same account in between.
 */
describe('ledger times follow the commit order of each account', () => {
  let t: TestApp;
  let db: Client;
  let holder: Client;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
    db = await connectTestDatabase();
    holder = await connectTestDatabase();
  });
  afterAll(async () => {
    await holder.end();
    await db.end();
    await t.close();
  });

  it('stamps a transfer after its locks, not when its database transaction began', async () => {
    // Names fix the lock order: the early transfer locks `a` (held below) before `y`.
    const a = await t.api.registerUser({ upiId: uniqueUpiId('a-first'), balance: 100 });
    const y = await t.api.registerUser({ upiId: uniqueUpiId('y-shared'), balance: 100 });
    const z = await t.api.registerUser({ upiId: uniqueUpiId('z-other'), balance: 100 });

    await holder.query('BEGIN');
    await holder.query('SELECT (account_locked_by_upi(lower($1))).id', [a.upiId]);
    const holderPid = ((await holder.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
    const early = t.api.transfer(a, y.upiId, 10);
    await waitForBackendBlockedBy(db, holderPid, 15_000);

    // Starts later, locks y and z at once and commits while the early transfer still waits for `a`.
    const between = await t.api.transfer(y, z.upiId, 5);
    expect(between.status).toBe(201);
    await holder.query('ROLLBACK');
    const late = await early;
    expect(late.status).toBe(201);

    const entries = await db.query<{ reference: string; created_at: Date }>(
      `SELECT transaction_reference_id::text AS reference, created_at FROM ledger_entries
       WHERE user_id = (SELECT id FROM users WHERE lower(upi_id) = lower($1)) AND transaction_id IS NOT NULL
       ORDER BY id`,
      [y.upiId],
    );
    expect(entries.rows.map((row) => row.reference)).toEqual([between.body.referenceId, late.body.referenceId]);
    expect(entries.rows[1].created_at.getTime()).toBeGreaterThanOrEqual(entries.rows[0].created_at.getTime());
    expect(Date.parse(late.body.createdAt as string)).toBeGreaterThanOrEqual(
      Date.parse(between.body.createdAt as string),
    );
  }, 60_000);
});
