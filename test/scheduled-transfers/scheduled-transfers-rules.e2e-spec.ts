import type { ServerResponse } from 'node:http';
import { Client } from 'pg';
import { uniqueUpiId } from '../support/api-client';
import { balanceOf, createScratchDatabase } from '../support/db';
import type { RecordedCall } from '../support/fake-http-server';
import { sendJson } from '../support/fake-http-server';
import { FakeUpiProvider } from '../support/fake-upi-provider';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const ADMIN = uniqueUpiId('schedules-admin');

/** A provider that fails (500) for some UPI IDs only: one payee's outage, not everyone's. */
class PartlyFailingProvider extends FakeUpiProvider {
  readonly failing = new Set<string>();

  protected override async answer(call: RecordedCall, response: ServerResponse): Promise<void> {
    if (this.failing.has(String(call.body?.upiId).toLowerCase())) return sendJson(response, 500, { error: 'down' });
    return super.answer(call, response);
  }
}

/**
 * Transfer rules on scheduled runs: the UPI verification provider, an admin's freeze. A database of its own,
 * so that no other test file's service (without a provider) runs these instructions.
 */
describe('scheduled transfer runs follow the transfer rules: UPI verification of the payee, freezes', () => {
  const provider = new PartlyFailingProvider();
  let scratch: { url: string; drop: () => Promise<void> };
  let db: Client;
  let app: TestApp;

  beforeAll(async () => {
    await provider.start();
    scratch = await createScratchDatabase();
    db = new Client({ connectionString: scratch.url });
    await db.connect();
    app = await startTestApp({
      DATABASE_URL: scratch.url,
      UPI_VERIFICATION_URL: provider.url,
      UPI_VERIFICATION_CACHE_TTL_MS: '0',
      UPI_VERIFICATION_CIRCUIT_HALF_OPEN_MS: '200',
      ADMIN_UPI_IDS: ADMIN,
    });
  });
  afterAll(async () => {
    await app?.close();
    await db?.end();
    await scratch?.drop();
    await provider.stop();
  });

  const runsOf = async (referenceId: string, token: string) =>
    (await app.api.get(`/api/v1/scheduled-transfers/${referenceId}/runs`, token)).body as {
      status: string;
      transactionReferenceId: string | null;
      problem: { type: string; detail: string } | null;
    }[];
  const dueNow = async (sender: { token: string }, receiverUpiId: string) => {
    const created = await app.api.post(
      '/api/v1/scheduled-transfers',
      { receiverUpiId, amount: 25, frequency: 'WEEKLY', startAt: new Date(Date.now() + 3_600_000).toISOString() },
      { token: sender.token },
    );
    expect(created.status).toBe(201);
    return created.body.referenceId as string;
  };
  const makeDue = (referenceId: string) =>
    db.query(`UPDATE scheduled_transfers SET start_at = now(), next_run_at = now() WHERE reference_id = $1`, [
      referenceId,
    ]);

  it('records FAILED invalid-upi-id when the provider rejects the payee, and moves nothing', async () => {
    const [sender, receiver] = await Promise.all([
      app.api.registerUser({ balance: 100 }),
      app.api.registerUser({ balance: 0 }),
    ]);
    const referenceId = await dueNow(sender, receiver.upiId);
    provider.rejected.add(receiver.upiId.toLowerCase());
    await makeDue(referenceId);
    await waitUntil(async () => (await runsOf(referenceId, sender.token)).length > 0, 'the run', 30_000);
    expect(await runsOf(referenceId, sender.token)).toEqual([
      expect.objectContaining({
        status: 'FAILED',
        transactionReferenceId: null,
        problem: { type: expect.stringMatching(/\/invalid-upi-id$/), detail: expect.any(String) },
      }),
    ]);
    expect(await balanceOf(db, sender.upiId)).toBe('100.0000');
    expect(await balanceOf(db, receiver.upiId)).toBe('0.0000');
  });

  it('keeps a run due while the provider is down, and runs it once when it is back', async () => {
    const [sender, receiver] = await Promise.all([
      app.api.registerUser({ balance: 100 }),
      app.api.registerUser({ balance: 0 }),
    ]);
    const referenceId = await dueNow(sender, receiver.upiId);
    provider.mode = 'fail';
    try {
      await makeDue(referenceId);
      // Asked (and failing) on several ticks: the outage records nothing and moves nothing.
      await waitUntil(() => provider.callsFor(receiver.upiId) >= 2, 'the provider to be asked twice', 30_000);
      expect(await runsOf(referenceId, sender.token)).toEqual([]);
      expect(await balanceOf(db, receiver.upiId)).toBe('0.0000');
    } finally {
      provider.mode = 'accept';
    }
    await waitUntil(async () => (await runsOf(referenceId, sender.token)).length > 0, 'the run after recovery', 30_000);
    const runs = await runsOf(referenceId, sender.token);
    expect(runs).toEqual([expect.objectContaining({ status: 'COMPLETED', problem: null })]);
    expect(await balanceOf(db, sender.upiId)).toBe('75.0000');
    expect(await balanceOf(db, receiver.upiId)).toBe('25.0000');
  });

  it('lets other instructions run while one stays due for an outage of its payee', async () => {
    const [sender, stuck, fine] = await Promise.all([
      app.api.registerUser({ balance: 100 }),
      app.api.registerUser({ balance: 0 }),
      app.api.registerUser({ balance: 0 }),
    ]);
    const first = await dueNow(sender, stuck.upiId);
    const second = await dueNow(sender, fine.upiId);
    provider.failing.add(stuck.upiId.toLowerCase());
    try {
      // The stuck one is due earlier, so it is the first claimed on every tick.
      await db.query(
        `UPDATE scheduled_transfers SET start_at = now() - (CASE WHEN reference_id = $1 THEN interval '2 minutes' ELSE interval '1 minute' END),
           next_run_at = now() - (CASE WHEN reference_id = $1 THEN interval '2 minutes' ELSE interval '1 minute' END)
         WHERE reference_id IN ($1, $2)`,
        [first, second],
      );
      await waitUntil(async () => (await runsOf(second, sender.token)).length > 0, 'the second instruction', 30_000);
      expect(await runsOf(second, sender.token)).toEqual([expect.objectContaining({ status: 'COMPLETED' })]);
      expect(await runsOf(first, sender.token)).toEqual([]);
      expect(provider.callsFor(stuck.upiId)).toBeGreaterThan(0);
    } finally {
      provider.failing.clear();
    }
    await waitUntil(async () => (await runsOf(first, sender.token)).length > 0, 'the first instruction', 30_000);
    expect(await runsOf(first, sender.token)).toEqual([expect.objectContaining({ status: 'COMPLETED' })]);
    expect(await balanceOf(db, stuck.upiId)).toBe('25.0000');
    expect(await balanceOf(db, fine.upiId)).toBe('25.0000');
  });

  it('records FAILED account-frozen when the sender is frozen, and runs again once unfrozen', async () => {
    const admin = await app.api.registerUser({ upiId: ADMIN });
    const [sender, receiver] = await Promise.all([
      app.api.registerUser({ balance: 100 }),
      app.api.registerUser({ balance: 0 }),
    ]);
    const control = (what: string) =>
      app.api.post(
        `/api/v1/admin/users/${sender.referenceId}/${what}`,
        { reason: 'schedules test' },
        { token: admin.token },
      );
    expect((await control('freeze')).status).toBe(200);
    const referenceId = await dueNow(sender, receiver.upiId);
    await makeDue(referenceId);
    await waitUntil(async () => (await runsOf(referenceId, sender.token)).length > 0, 'the frozen run', 30_000);
    expect(await runsOf(referenceId, sender.token)).toEqual([
      expect.objectContaining({
        status: 'FAILED',
        problem: { type: expect.stringMatching(/\/account-frozen$/), detail: expect.any(String) },
      }),
    ]);
    expect(await balanceOf(db, sender.upiId)).toBe('100.0000');
    expect((await control('unfreeze')).status).toBe(200);
    // The next week comes: the failed occurrence is not retried, the next one runs.
    await db.query(
      `UPDATE scheduled_transfers SET start_at = start_at - interval '7 days 1 minute',
         next_run_at = next_run_at - interval '7 days 1 minute' WHERE reference_id = $1`,
      [referenceId],
    );
    await waitUntil(async () => (await runsOf(referenceId, sender.token)).length > 1, 'the next run', 30_000);
    // (Moved back by SQL past the failed one, the second occurrence lists first or second: only the pair matters.)
    expect((await runsOf(referenceId, sender.token)).map((run) => run.status).sort()).toEqual(['COMPLETED', 'FAILED']);
    expect(await balanceOf(db, receiver.upiId)).toBe('25.0000');
  });
});
