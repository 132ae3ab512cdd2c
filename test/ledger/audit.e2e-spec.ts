import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import { newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { createScratchDatabase } from '../support/db';
import { startTestApp, type TestApp } from '../support/test-app';

const run = promisify(execFile);

interface CliResult {
  code: number;
  report: {
    ok: boolean;
    globalSum: number;
    brokenEntries: { entryId: number; reasons: string[] }[];
    brokenAccounts: { upiId: string; reason: string }[];
    unbalancedTransactions: { transactionReferenceId: string }[];
    orphans: { kind: string; id: number; missing: string; missingId: number }[];
    counts: Record<string, number>;
  };
}

/** The built CLI (what `npm run audit` runs after its build), or `npm run audit` itself. */
async function audit(url: string, viaNpm = false): Promise<CliResult> {
  // --json=false: in the JSON mode .npmrc sets, npm adds its own error document to a failing script's stdout.
  const [file, args] = viaNpm
    ? ['npm', ['run', '--silent', '--json=false', 'audit']]
    : [process.execPath, [join(REPO_ROOT, 'dist', 'scripts', 'audit', 'audit.js')]];
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    DATABASE_URL: url,
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
  };
  try {
    const { stdout } = await run(file, args, { cwd: REPO_ROOT, env, timeout: 240_000 });
    return { code: 0, report: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number' || !failed.stdout) throw error;
    return { code: failed.code, report: JSON.parse(failed.stdout) };
  }
}

/**
 * On a database of its own: the tampering below must not be seen by other files' checks. Each
 * tamper runs as the superuser with triggers off (session_replication_role = replica) and is undone.
 */
describe('the ledger audit', () => {
  let t: TestApp;
  let db: Client;
  let url: string;
  let drop: () => Promise<void>;
  let admin: RegisteredUser;
  let alice: RegisteredUser;
  let bob: RegisteredUser;
  const adminUpiId = uniqueUpiId('admin');

  beforeAll(async () => {
    const scratch = await createScratchDatabase();
    ({ url, drop } = scratch);
    t = await startTestApp({ DATABASE_URL: url, ADMIN_UPI_IDS: adminUpiId, RATE_LIMIT_PER_SECOND: '1000' });
    db = new Client({ connectionString: url });
    await db.connect();
    admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
    [alice, bob] = await Promise.all([t.api.registerUser({ balance: 500 }), t.api.registerUser({ balance: 40 })]);
    const transfers = [];
    for (const amount of [10, 20, 30, 40]) transfers.push(await t.api.transfer(alice, bob.upiId, amount));
    const deposit = await t.api.post(
      '/api/v1/admin/deposits',
      { upiId: bob.upiId, amount: 7 },
      { token: admin.token, headers: { 'idempotency-key': newIdempotencyKey() } },
    );
    const reversal = await t.api.post(
      `/api/v1/transactions/${transfers[1].body.referenceId}/reversals`,
      { amount: 5 },
      { token: bob.token, headers: { 'idempotency-key': newIdempotencyKey() } },
    );
    expect([...transfers.map((r) => r.status), deposit.status, reversal.status]).toEqual(Array(6).fill(201));
  });

  afterAll(async () => {
    await db.end();
    await t.close();
    await drop();
  });

  /** Bob's entries, oldest first. */
  async function entriesOf(user: RegisteredUser) {
    const result = await db.query(
      `SELECT l.* FROM ledger_entries l JOIN users u ON u.id = l.user_id WHERE u.upi_id = $1 ORDER BY l.id`,
      [user.upiId],
    );
    return result.rows as Record<string, unknown>[];
  }

  async function tampering(sql: string, params: unknown[] = []): Promise<void> {
    await db.query('BEGIN');
    await db.query('SET LOCAL session_replication_role = replica');
    await db.query(sql, params);
    await db.query('COMMIT');
  }

  const COLUMNS = [
    'user_id',
    'transaction_id',
    'transaction_reference_id',
    'entry_type',
    'amount',
    'balance_before',
    'balance_after',
    'created_at',
    'hash',
  ];

  async function restore(row: Record<string, unknown>): Promise<void> {
    await tampering(
      `INSERT INTO ledger_entries (id, ${COLUMNS.join(', ')}) OVERRIDING SYSTEM VALUE
       VALUES ($1, ${COLUMNS.map((_, i) => `$${i + 2}`).join(', ')})`,
      [row.id, ...COLUMNS.map((c) => row[c])],
    );
  }

  it('reports ok on a clean ledger, over HTTP (admin only) and from the CLI (exit 0)', async () => {
    const response = await t.api.get('/api/v1/admin/audit', admin.token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ok: true,
      checkedAt: expect.stringMatching(/Z$/),
      accounts: 8 + 8 + 3, // the treasury's eight rows, the holds accounts' eight, the admin, Alice and Bob
      entries: expect.any(Number),
      globalSum: 0,
      brokenEntries: [],
      brokenAccounts: [],
      unbalancedTransactions: [],
      orphans: [],
      brokenTransactions: [],
      counts: { brokenEntries: 0, brokenAccounts: 0, unbalancedTransactions: 0, orphans: 0, brokenTransactions: 0 },
      adminActionsLog: { appendOnly: true, actions: expect.any(Number) },
    });
    expect(response.text).toContain('"globalSum":0.0000');
    // Two openings (the admin's is zero), 4 transfers, 1 deposit, 1 reversal: 2 entries each.
    expect(response.body.entries).toBe(2 * 2 + 4 * 2 + 2 + 2);
    expect((await t.api.get('/api/v1/admin/audit', alice.token)).status).toBe(403);
    expect((await t.api.get('/api/v1/admin/audit')).status).toBe(401);

    const cli = await audit(url);
    expect(cli.code).toBe(0);
    expect(cli.report.ok).toBe(true);
  });

  it('catches a changed amount: `npm run audit` exits non-zero naming that entry', async () => {
    const [, , target] = await entriesOf(bob);
    await tampering('UPDATE ledger_entries SET amount = amount + 1, balance_after = balance_after + 1 WHERE id = $1', [
      target.id,
    ]);
    try {
      const cli = await audit(url, true);
      expect(cli.code).toBe(1);
      expect(cli.report.ok).toBe(false);
      expect(cli.report.brokenEntries.map((e) => String(e.entryId))).toContain(String(target.id));
      const named = cli.report.brokenEntries.find((e) => String(e.entryId) === String(target.id))!;
      expect(named.reasons).toContain('hash does not match the entry and the previous entry of its account');
      expect(cli.report.unbalancedTransactions.map((x) => x.transactionReferenceId)).toContain(
        target.transaction_reference_id,
      );
    } finally {
      await tampering(
        'UPDATE ledger_entries SET amount = amount - 1, balance_after = balance_after - 1 WHERE id = $1',
        [target.id],
      );
    }
    expect((await audit(url)).report.ok).toBe(true);
  }, 300_000);

  it('catches a changed amount even when the tamperer recomputes that entry\u2019s hash', async () => {
    const [, target, next] = await entriesOf(bob);
    await tampering(
      `UPDATE ledger_entries l SET amount = amount + 1, balance_after = balance_after + 1,
         hash = decode(ledger_entry_hash((SELECT encode(p.hash, 'hex') FROM ledger_entries p
                                          WHERE p.user_id = l.user_id AND p.id < l.id ORDER BY p.id DESC LIMIT 1),
                                         user_id, transaction_reference_id, entry_type, amount + 1, balance_before,
                                         balance_after + 1, created_at), 'hex')
       WHERE id = $1`,
      [target.id],
    );
    try {
      const cli = await audit(url);
      expect(cli.code).toBe(1);
      expect(cli.report.brokenEntries.map((e) => String(e.entryId))).toContain(String(next.id));
    } finally {
      await tampering('DELETE FROM ledger_entries WHERE id = $1', [target.id]);
      await restore(target);
    }
    expect((await audit(url)).report.ok).toBe(true);
  });

  it('catches a deleted entry, in the middle of a chain and at its head', async () => {
    const entries = await entriesOf(alice);
    const [middle, following] = [entries[2], entries[3]];
    await tampering('DELETE FROM ledger_entries WHERE id = $1', [middle.id]);
    try {
      const cli = await audit(url);
      expect(cli.code).toBe(1);
      expect(cli.report.brokenEntries.map((e) => String(e.entryId))).toContain(String(following.id));
      expect(cli.report.brokenAccounts).toContainEqual(
        expect.objectContaining({ upiId: alice.upiId, reason: 'balance is not credits minus debits' }),
      );
    } finally {
      await restore(middle);
    }
    expect((await audit(url)).report.ok).toBe(true);

    const newest = entries[entries.length - 1];
    await tampering('DELETE FROM ledger_entries WHERE id = $1', [newest.id]);
    try {
      const response = await t.api.get('/api/v1/admin/audit', admin.token);
      expect(response.body.ok).toBe(false);
      expect(response.body.brokenAccounts).toContainEqual(
        expect.objectContaining({
          upiId: alice.upiId,
          reason: 'the head hash on the account is not the hash of its newest entry',
        }),
      );
    } finally {
      await restore(newest);
    }
    expect((await t.api.get('/api/v1/admin/audit', admin.token)).body.ok).toBe(true);
  });

  it('catches a reordered chain: two entries of an account swapped', async () => {
    const entries = await entriesOf(bob);
    const [first, second] = [entries[1], entries[2]];
    const swap = async (a: Record<string, unknown>, b: Record<string, unknown>) => {
      await tampering(
        `UPDATE ledger_entries SET ${COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`,
        [a.id, ...COLUMNS.map((c) => b[c])],
      );
    };
    await swap(first, second);
    await swap(second, first);
    try {
      const cli = await audit(url);
      expect(cli.code).toBe(1);
      const named = cli.report.brokenEntries.map((e) => String(e.entryId));
      expect(named).toEqual(expect.arrayContaining([String(first.id), String(second.id)]));
      // The sums still add up: only the chain shows the reordering.
      expect(cli.report.unbalancedTransactions).toEqual([]);
      expect(cli.report.globalSum).toBe(0);
    } finally {
      await swap(first, first);
      await swap(second, second);
    }
    expect((await audit(url)).report.ok).toBe(true);
  });

  it('catches money created outside the ledger: a balance changed, the global sum off zero', async () => {
    await tampering('UPDATE users SET balance = balance + 100 WHERE upi_id = $1', [bob.upiId]);
    try {
      const cli = await audit(url);
      expect(cli.code).toBe(1);
      expect(cli.report.globalSum).toBe(100);
      expect(cli.report.brokenAccounts).toContainEqual(
        expect.objectContaining({ upiId: bob.upiId, reason: 'balance is not credits minus debits' }),
      );
    } finally {
      await tampering('UPDATE users SET balance = balance - 100 WHERE upi_id = $1', [bob.upiId]);
    }
    expect((await audit(url)).report.ok).toBe(true);
  });

  it('catches orphans: entries whose transaction is gone, a transaction whose sender and receiver are gone', async () => {
    // No foreign key guards these since migration 1764001100000; the audit must see what one would refuse.
    const [, , entry] = await entriesOf(bob);
    const transaction = (await db.query('SELECT * FROM transactions WHERE id = $1', [entry.transaction_id])).rows[0];
    const ghost = '999999999';
    const ghostSender = '999999998';
    await tampering('DELETE FROM transactions WHERE id = $1', [transaction.id]);
    await tampering(
      'UPDATE transactions SET sender_id = $1, receiver_id = $2 WHERE id = (SELECT max(id) FROM transactions)',
      [ghostSender, ghost],
    );
    const orphaned = (await db.query('SELECT id FROM transactions WHERE receiver_id = $1', [ghost])).rows[0];
    try {
      const cli = await audit(url, true);
      expect(cli.code).toBe(1);
      expect(cli.report.ok).toBe(false);
      expect(cli.report.orphans).toEqual(
        expect.arrayContaining([
          { kind: 'ledger-entry', id: Number(entry.id), missing: 'transaction', missingId: Number(transaction.id) },
          { kind: 'transaction', id: Number(orphaned.id), missing: 'receiver', missingId: Number(ghost) },
          { kind: 'transaction', id: Number(orphaned.id), missing: 'sender', missingId: Number(ghostSender) },
        ]),
      );
      const response = await t.api.get('/api/v1/admin/audit', admin.token);
      expect(response.body.ok).toBe(false);
      expect(response.body.counts.orphans).toBe(cli.report.orphans.length);
      // Both entries of the deleted transaction are named, and nothing else is wrong.
      expect(cli.report.orphans.filter((o) => o.missing === 'transaction')).toHaveLength(2);
      expect([cli.report.brokenEntries, cli.report.brokenAccounts, cli.report.unbalancedTransactions]).toEqual([
        [],
        [],
        [],
      ]);
    } finally {
      const columns = Object.keys(transaction);
      await tampering(
        `INSERT INTO transactions (${columns.join(', ')}) OVERRIDING SYSTEM VALUE
         VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        columns.map((c) => transaction[c]),
      );
      await tampering(
        `UPDATE transactions t SET sender_id = s.id, receiver_id = r.id FROM users s, users r
         WHERE t.id = $1 AND lower(s.upi_id) = lower(t.sender_upi_id) AND lower(r.upi_id) = lower(t.receiver_upi_id)`,
        [orphaned.id],
      );
    }
    expect((await audit(url)).report.ok).toBe(true);
  }, 300_000);
});
