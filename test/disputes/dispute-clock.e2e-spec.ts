import { Client } from 'pg';
import { type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { createScratchDatabase } from '../support/db';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';
import { DisputeCalls, disputeEvents } from './dispute-helpers';

// Durations in decimals, so the clock runs fast: 3.6 s for the payee, 5.2 s of admin turnaround.
const FAST_CLOCK = { DISPUTE_RESPONSE_HOURS: '0.001', DISPUTE_RESOLUTION_DAYS: '0.00006' };

/** On a database of its own, for the whole-ledger audit at the end (see disputes.e2e-spec.ts). */
describe('disputes on the clock: escalation by silence, once on two instances; overdue; the window', () => {
  let url: string;
  let drop: () => Promise<void>;
  let first: TestApp;
  let second: TestApp;
  let db: Client;
  let admin: RegisteredUser;
  let calls: DisputeCalls;
  const adminUpiId = uniqueUpiId('admin');

  beforeAll(async () => {
    ({ url, drop } = await createScratchDatabase());
    const env = { DATABASE_URL: url, RATE_LIMIT_PER_SECOND: '1000', ADMIN_UPI_IDS: adminUpiId, ...FAST_CLOCK };
    [first, second] = await Promise.all([startTestApp(env), startTestApp(env)]);
    db = new Client({ connectionString: url });
    await db.connect();
    calls = new DisputeCalls(first.api);
    admin = await first.api.registerUser({ upiId: adminUpiId, balance: 0 });
    calls.users.push(admin);
  }, 90_000);

  afterAll(async () => {
    await db.end();
    await Promise.all([first.close(), second.close()]);
    await drop();
  });

  async function statusOf(disputeId: string): Promise<string> {
    return (await calls.read(admin, disputeId)).body.status;
  }

  it('escalates silence past respondBy by itself, exactly once with two instances running; then shows it overdue', async () => {
    const disputes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { payer, transfer } = await calls.paid(10);
      disputes.push((await calls.opened(payer, transfer.referenceId)).referenceId);
    }
    const answered = await calls.paid(10);
    const accepted = await calls.opened(answered.payer, answered.transfer.referenceId);
    expect((await calls.answer(answered.payee, accepted.referenceId, 'accept')).status).toBe(200);

    await waitUntil(
      async () => (await Promise.all(disputes.map(statusOf))).every((status) => status === 'ESCALATED'),
      'every silent dispute to escalate',
    );
    for (const disputeId of disputes) {
      const dispute = (await calls.read(admin, disputeId)).body;
      expect(dispute.history.map((line: any) => [line.status, line.byUpiId, line.note])).toEqual([
        ['OPEN', dispute.raisedByUpiId, null],
        ['ESCALATED', null, 'No answer by respondBy'],
      ]);
      // The turnaround starts at respondBy.
      expect(Date.parse(dispute.resolveBy) - Date.parse(dispute.respondBy)).toBe(0.00006 * 86_400_000);
      expect((await disputeEvents(db, disputeId)).map((event) => event.type)).toEqual([
        'DisputeOpened',
        'DisputeEscalated',
      ]);
    }
    expect(await statusOf(accepted.referenceId)).toBe('RESOLVED');

    // A late answer from the payee is refused: the dispute is the admin's now.
    const late = await calls.paid(10);
    const lateDispute = await calls.opened(late.payer, late.transfer.referenceId);
    await waitUntil(async () => (await statusOf(lateDispute.referenceId)) === 'ESCALATED', 'the late one to escalate');
    expect((await calls.answer(late.payee, lateDispute.referenceId, 'accept')).status).toBe(409);

    // Each was opened a little after the one before, so each passes its resolveBy a little later.
    await waitUntil(
      async () =>
        (await Promise.all(disputes.map((id) => calls.read(admin, id)))).every((r) => r.body.overdue === true),
      'the escalated disputes to pass resolveBy',
    );
    const overdue = await first.api.get('/api/v1/admin/disputes?overdue=true&size=100', admin.token);
    expect(overdue.status).toBe(200);
    const listed = overdue.body.content.map((d: any) => d.referenceId);
    expect(listed).toEqual(expect.arrayContaining(disputes));
    expect(overdue.body.content.every((d: any) => d.overdue === true && d.status === 'ESCALATED')).toBe(true);
    expect(listed).not.toContain(accepted.referenceId);

    await waitUntil(async () => {
      const scrape = (await second.api.get('/actuator/prometheus', admin.token)).text;
      const value = /^payments_disputes_overdue (\d+)/m.exec(scrape);
      return value !== null && Number(value[1]) >= disputes.length;
    }, 'the overdue gauge to count them');
    const scrape = (await first.api.get('/actuator/prometheus', admin.token)).text;
    expect(scrape).toMatch(/^payments_disputes\{status="OPEN"\} \d+/m);
    expect(scrape).toMatch(/^payments_disputes\{status="ESCALATED"\} \d+/m);

    // Settling an overdue dispute takes it off the list.
    const settled = await calls.resolve(admin, disputes[0], { decision: 'REJECT', note: 'Delivered' });
    expect([settled.status, settled.body.overdue]).toEqual([200, false]);
    await calls.expectMoneyConserved(db, admin);
  });

  it('refuses a dispute past DISPUTE_WINDOW_DAYS with 422 dispute-window-closed', async () => {
    const narrow = await startTestApp({ DATABASE_URL: url, DISPUTE_WINDOW_DAYS: '0.00001' }); // 0.864 s
    try {
      const { payer, transfer } = await calls.paid(10);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const response = await narrow.api.post(
        `/api/v1/transactions/${transfer.referenceId}/disputes`,
        { reason: 'OTHER' },
        {
          token: payer.token,
          headers: { 'idempotency-key': `window-${transfer.referenceId}` },
        },
      );
      expect([response.status, response.body.type]).toEqual([422, expect.stringMatching(/\/dispute-window-closed$/)]);
      // The default window (45 days) still takes it.
      expect((await calls.open(payer, transfer.referenceId)).status).toBe(201);
    } finally {
      await narrow.close();
    }
  });
});
