import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import { newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { createScratchDatabase } from '../support/db';
import { startTestApp, type TestApp } from '../support/test-app';

const run = promisify(execFile);

interface BrokenTransaction {
  transactionReferenceId: string;
  transactionId: number;
  type: string;
  reasons: string[];
}

/** `npm run audit` against the scratch database: exit code and report. */
async function cliAudit(
  url: string,
): Promise<{ code: number; report: { ok: boolean; brokenTransactions: BrokenTransaction[] } }> {
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    DATABASE_URL: url,
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
  };
  const cli = join(REPO_ROOT, 'dist', 'scripts', 'audit', 'audit.js');
  try {
    const { stdout } = await run(process.execPath, [cli], { cwd: REPO_ROOT, env, timeout: 240_000 });
    return { code: 0, report: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    if (typeof failed.code !== 'number' || !failed.stdout) throw error;
    return { code: failed.code, report: JSON.parse(failed.stdout) };
  }
}

/**
 * Issue 21.3 on a database of its own (the tampering must not reach other files' audits). The
 * direct connection is a superuser: the guard trigger is what refuses, not a missing privilege.
 */
describe('tamper-evident transactions', () => {
  let t: TestApp;
  let db: Client;
  let url: string;
  let drop: () => Promise<void>;
  let admin: RegisteredUser;
  const adminUpiId = uniqueUpiId('admin');

  beforeAll(async () => {
    ({ url, drop } = await createScratchDatabase());
    t = await startTestApp({ DATABASE_URL: url, ADMIN_UPI_IDS: adminUpiId, RATE_LIMIT_PER_SECOND: '1000' });
    db = new Client({ connectionString: url });
    await db.connect();
    admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
  });

  afterAll(async () => {
    await db?.end();
    await t?.close();
    await drop?.();
  });

  function reverse(caller: RegisteredUser, referenceId: string, body: Record<string, unknown> = {}) {
    return t.api.post(`/api/v1/transactions/${referenceId}/reversals`, body, {
      token: caller.token,
      headers: { 'idempotency-key': newIdempotencyKey() },
    });
  }

  /** Alice pays Bob 10.0000. */
  async function paid() {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 100 }), t.api.registerUser({ balance: 0 })]);
    const transfer = await t.api.transfer(alice, bob.upiId, 10);
    expect(transfer.status).toBe(201);
    return { alice, bob, referenceId: transfer.body.referenceId as string };
  }

  async function refusal(sql: string, params: unknown[] = []): Promise<string> {
    await db.query('BEGIN');
    try {
      await db.query(sql, params);
      return 'accepted';
    } catch (error) {
      return (error as Error).message;
    } finally {
      await db.query('ROLLBACK');
    }
  }

  /** As a superuser who switches every ordinary trigger off: what only the audit can catch. */
  async function bypassing(sql: string, params: unknown[] = []): Promise<void> {
    await db.query('BEGIN');
    await db.query('SET LOCAL session_replication_role = replica');
    await db.query(sql, params);
    await db.query('COMMIT');
  }

  async function httpAudit() {
    const response = await t.api.get('/api/v1/admin/audit', admin.token);
    expect(response.status).toBe(200);
    return response.body as { ok: boolean; brokenTransactions: BrokenTransaction[]; counts: Record<string, number> };
  }

  it('makes the double refund impossible: the reset is refused, and a second full reversal is 422', async () => {
    const { bob, referenceId } = await paid();
    expect((await reverse(bob, referenceId)).status).toBe(201);

    const reset = `UPDATE transactions SET reversed_amount = 0, status = 'COMPLETED' WHERE reference_id = $1`;
    expect(await refusal(reset, [referenceId])).toMatch(/change only by reverse_transfer/);
    // Even a session that sets the reversal function's flag by hand can only write what the reversals imply.
    const forged = `SELECT set_config('payments.reversal_of', id::text, true) FROM transactions WHERE reference_id = $1`;
    await db.query('BEGIN');
    try {
      await db.query(forged, [referenceId]);
      await expect(db.query(reset, [referenceId])).rejects.toThrow(/its reversals sum to 10\.0000 \(REVERSED\)/);
    } finally {
      await db.query('ROLLBACK');
    }

    const second = await reverse(bob, referenceId);
    expect(second.status).toBe(422);
    expect(second.body.type).toMatch(/reversal-exceeds-remaining$/);
    const reversals = await db.query(
      `SELECT count(*)::int AS n FROM transactions WHERE original_reference_id = $1 AND type = 'REVERSAL'`,
      [referenceId],
    );
    expect(reversals.rows[0].n).toBe(1);
    expect((await httpAudit()).ok).toBe(true);
  });

  it.each([
    ['amount', 'amount = amount + 1'],
    ['reversed amount', 'reversed_amount = 1'],
    ['status', `status = 'REVERSED'`],
    ['parties', 'sender_upi_id = receiver_upi_id'],
    ['time', `created_at = created_at - interval '1 day'`],
    ['type', `type = 'DEPOSIT'`],
    ['note', `note = 'changed'`],
    ['hash', `content_hash = decode(repeat('0', 64), 'hex')`],
  ])('refuses a change of the %s', async (_field, assignment) => {
    const { referenceId } = await paid();
    expect(await refusal(`UPDATE transactions SET ${assignment} WHERE reference_id = $1`, [referenceId])).toMatch(
      /is immutable|change only by reverse_transfer/,
    );
  });

  it('lets partial reversals through the guard, and the audit agrees with every state they leave', async () => {
    const { bob, referenceId } = await paid();
    for (const amount of [3, 3, 4]) expect((await reverse(bob, referenceId, { amount })).status).toBe(201);
    const row = await db.query(`SELECT reversed_amount::text AS r, status FROM transactions WHERE reference_id = $1`, [
      referenceId,
    ]);
    expect(row.rows[0]).toEqual({ r: '10.0000', status: 'REVERSED' });
    const report = await httpAudit();
    expect(report.brokenTransactions).toEqual([]);
    expect(report.ok).toBe(true);
  });

  describe('what bypasses the triggers is reported by reference, over HTTP and by `npm run audit`', () => {
    const cases: [string, string, string[]][] = [
      [
        'amount',
        'amount = amount + 1',
        [
          "hash does not match the transaction's parties, amount, type, note, original and time",
          "the receiver's CREDIT entries do not add up to the amount",
          "the sender's DEBIT entries do not add up to the amount",
          // 10.0000 reversed of 11.0000 is no longer REVERSED.
          'status is not the one its reversals imply',
        ],
      ],
      // A tamperer who also recomputes the hash is still caught by the chained ledger entries.
      [
        'amount with its hash recomputed',
        `amount = amount + 1, content_hash = decode(transaction_content_hash(id, reference_id, sender_id, receiver_id,
           sender_upi_id, receiver_upi_id, amount + 1, type, note, original_transaction_id, original_reference_id, created_at),
           'hex')`,
        [
          "the receiver's CREDIT entries do not add up to the amount",
          "the sender's DEBIT entries do not add up to the amount",
          'status is not the one its reversals imply',
        ],
      ],
      [
        'reversed amount and status (the double refund set-up)',
        `reversed_amount = 0, status = 'COMPLETED'`,
        ['reversedAmount is not the sum of its reversals', 'status is not the one its reversals imply'],
      ],
      ['status alone', `status = 'PARTIALLY_REVERSED'`, ['status is not the one its reversals imply']],
    ];

    it.each(cases)(
      '%s',
      async (_what, assignment, reasons) => {
        const { bob, referenceId } = await paid();
        expect((await reverse(bob, referenceId)).status).toBe(201);
        const before = (await db.query('SELECT * FROM transactions WHERE reference_id = $1', [referenceId])).rows[0];
        await bypassing(`UPDATE transactions SET ${assignment} WHERE reference_id = $1`, [referenceId]);
        try {
          const report = await httpAudit();
          expect(report.ok).toBe(false);
          expect(report.counts.brokenTransactions).toBe(1);
          expect(report.brokenTransactions).toEqual([
            { transactionReferenceId: referenceId, transactionId: Number(before.id), type: 'TRANSFER', reasons },
          ]);
          const cli = await cliAudit(url);
          expect(cli.code).toBe(1);
          expect(cli.report.brokenTransactions).toEqual(report.brokenTransactions);
        } finally {
          await bypassing(
            `UPDATE transactions SET amount = $2, reversed_amount = $3, status = $4, content_hash = $5 WHERE reference_id = $1`,
            [referenceId, before.amount, before.reversed_amount, before.status, before.content_hash],
          );
        }
        expect((await httpAudit()).ok).toBe(true);
      },
      300_000,
    );

    it('a reversal that names a transfer whose parties it does not mirror', async () => {
      const { bob, referenceId } = await paid();
      const reversal = await reverse(bob, referenceId, { amount: 1 });
      expect(reversal.status).toBe(201);
      const other = await paid();
      const row = (
        await db.query('SELECT id, original_transaction_id FROM transactions WHERE reference_id = $1', [
          reversal.body.referenceId,
        ])
      ).rows[0];
      const retarget = `UPDATE transactions SET original_transaction_id = o.id, original_reference_id = o.reference_id
        FROM transactions o WHERE transactions.id = $1 AND o.reference_id = $2`;
      await bypassing(retarget, [row.id, other.referenceId]);
      try {
        const report = await httpAudit();
        const named = new Map(report.brokenTransactions.map((b) => [b.transactionReferenceId, b.reasons]));
        expect(named.get(reversal.body.referenceId)).toContain('a reversal that does not mirror the transfer it names');
        expect(named.get(referenceId)).toContain('reversedAmount is not the sum of its reversals');
        expect(named.get(other.referenceId)).toContain('reversedAmount is not the sum of its reversals');
      } finally {
        await bypassing(retarget, [row.id, referenceId]);
      }
      expect((await httpAudit()).ok).toBe(true);
    });
  });
});
