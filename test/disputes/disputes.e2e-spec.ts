import { Client } from 'pg';
import { newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { balanceOf, createScratchDatabase } from '../support/db';
import { startTestApp, type TestApp } from '../support/test-app';
import { DisputeCalls, disputeEvents, reversalsOf } from './dispute-helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * On a database of its own: the file ends with the service's whole-ledger audit, which other files'
 * deliberate one-sided entries on the shared database would fail.
 */
describe('disputes (open, answers, admin settlement)', () => {
  let drop: () => Promise<void>;
  let t: TestApp;
  let db: Client;
  let admin: RegisteredUser;
  let calls: DisputeCalls;
  const adminUpiId = uniqueUpiId('admin');

  beforeAll(async () => {
    const scratch = await createScratchDatabase();
    drop = scratch.drop;
    t = await startTestApp({
      DATABASE_URL: scratch.url,
      RATE_LIMIT_PER_SECOND: '1000',
      ADMIN_UPI_IDS: adminUpiId,
      DB_POOL_SIZE: '20',
      // The webhook case subscribes an endpoint nobody listens on: its deliveries only have to exist.
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    db = new Client({ connectionString: scratch.url });
    await db.connect();
    calls = new DisputeCalls(t.api);
    admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
    calls.users.push(admin);
  }, 90_000);

  afterAll(async () => {
    await db.end();
    await t.close();
    await drop();
  });

  it('opens a dispute for the unreversed remainder: 201, Location, the Dispute, its history and event; the key replays', async () => {
    const { payer, payee, transfer } = await calls.paid('100.5');
    const key = newIdempotencyKey();
    const body = { reason: 'WRONG_RECIPIENT', description: 'Sent to the wrong Bob' };
    const response = await calls.open(payer, transfer.referenceId, body, key);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      referenceId: expect.stringMatching(UUID),
      transactionReferenceId: transfer.referenceId,
      raisedByUpiId: payer.upiId,
      counterpartyUpiId: payee.upiId,
      reason: 'WRONG_RECIPIENT',
      amount: 100.5,
      description: 'Sent to the wrong Bob',
      status: 'OPEN',
      resolution: null,
      respondBy: expect.stringMatching(ISO),
      resolveBy: expect.stringMatching(ISO),
      overdue: false,
      refundTransactionReferenceId: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      history: [
        { at: expect.stringMatching(ISO), status: 'OPEN', byUpiId: payer.upiId, note: 'Sent to the wrong Bob' },
      ],
    });
    expect(response.text).toContain('"amount":100.5000');
    const dispute = response.body;
    expect(response.headers.get('location')).toBe(`/api/v1/disputes/${dispute.referenceId}`);
    // DISPUTE_RESPONSE_HOURS (48) for the payee; the admin turnaround (30 days) counts from escalation.
    const hours = (Date.parse(dispute.respondBy) - Date.parse(dispute.createdAt)) / 3_600_000;
    expect(hours).toBe(48);
    expect((Date.parse(dispute.resolveBy) - Date.parse(dispute.respondBy)) / 86_400_000).toBe(30);

    const replay = await calls.open(payer, transfer.referenceId, body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(response.text);
    expect((await calls.open(payer, transfer.referenceId, { reason: 'OTHER' }, key)).status).toBe(400);

    expect(await disputeEvents(db, dispute.referenceId)).toEqual([
      {
        type: 'DisputeOpened',
        payload: expect.objectContaining({
          eventType: 'DisputeOpened',
          disputeReferenceId: dispute.referenceId,
          disputedTransactionReferenceId: transfer.referenceId,
          status: 'OPEN',
          amount: '100.5000',
        }),
      },
    ]);
  });

  it('refuses: not the payer 403, unknown 404, a second open dispute 409, more than the remainder or nothing left 422, a deposit 422, a bad body 422', async () => {
    const { payer, payee, transfer } = await calls.paid(100);
    const stranger = await calls.user();
    expect((await calls.open(payee, transfer.referenceId)).status).toBe(403);
    expect((await calls.open(stranger, transfer.referenceId)).status).toBe(403);
    const unknown = await calls.open(payer, '0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b');
    expect([unknown.status, unknown.body.type]).toEqual([404, expect.stringMatching(/transaction-not-found$/)]);
    const tooMuch = await calls.open(payer, transfer.referenceId, { reason: 'WRONG_AMOUNT', amount: '100.01' });
    expect([tooMuch.status, tooMuch.body.type]).toEqual([422, expect.stringMatching(/\/not-reversible$/)]);
    const invalid = await calls.open(payer, transfer.referenceId, { reason: 'BORED' });
    expect([invalid.status, Object.keys(invalid.body.errors)]).toEqual([422, ['reason']]);

    await calls.opened(payer, transfer.referenceId, { reason: 'WRONG_AMOUNT', amount: 30 });
    const twice = await calls.open(payer, transfer.referenceId);
    expect([twice.status, twice.body.type]).toEqual([409, expect.stringMatching(/\/dispute-already-open$/)]);

    // All of it reversed by the payee already: nothing left to dispute.
    const reversed = await calls.paid(50);
    const reversal = await t.api.post(
      `/api/v1/transactions/${reversed.transfer.referenceId}/reversals`,
      {},
      {
        token: reversed.payee.token,
        headers: { 'idempotency-key': newIdempotencyKey() },
      },
    );
    expect(reversal.status).toBe(201);
    const nothing = await calls.open(reversed.payer, reversed.transfer.referenceId);
    expect([nothing.status, nothing.body.type]).toEqual([422, expect.stringMatching(/\/not-reversible$/)]);

    // A deposit has no payer to complain.
    const deposit = await t.api.post(
      '/api/v1/admin/deposits',
      { upiId: payer.upiId, amount: 10 },
      {
        token: admin.token,
        headers: { 'idempotency-key': newIdempotencyKey() },
      },
    );
    expect((await calls.open(payer, deposit.body.referenceId)).status).toBe(403);
    expect((await calls.open(admin, deposit.body.referenceId)).status).toBe(403);
  });

  it('lets the parties and admins read a dispute, nobody else; only the payee answers, only the payer withdraws', async () => {
    const { payer, payee, transfer } = await calls.paid(100);
    const stranger = await calls.user();
    const dispute = await calls.opened(payer, transfer.referenceId);
    for (const reader of [payer, payee, admin])
      expect((await calls.read(reader, dispute.referenceId)).status).toBe(200);
    expect((await calls.read(stranger, dispute.referenceId)).status).toBe(403);
    expect((await calls.read(payer, '0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b')).status).toBe(404);
    expect((await t.api.get(`/api/v1/disputes/${dispute.referenceId}`)).status).toBe(401);

    for (const caller of [payer, stranger, admin]) {
      expect((await calls.answer(caller, dispute.referenceId, 'accept')).status).toBe(403);
      expect((await calls.answer(caller, dispute.referenceId, 'reject', { note: 'no' })).status).toBe(403);
    }
    for (const caller of [payee, stranger]) {
      expect((await calls.answer(caller, dispute.referenceId, 'withdraw')).status).toBe(403);
    }
    expect((await calls.resolve(payee, dispute.referenceId, { decision: 'REJECT', note: 'x' })).status).toBe(403);
    // An OPEN dispute is the payee's to answer first.
    const early = await calls.resolve(admin, dispute.referenceId, { decision: 'REFUND', note: 'x' });
    expect([early.status, early.body.type]).toEqual([409, expect.stringMatching(/\/dispute-status-conflict$/)]);
    expect((await calls.read(payer, dispute.referenceId)).body.status).toBe('OPEN');
    expect(await balanceOf(db, payee.upiId)).toBe('100.0000');
  });

  it('accept refunds once under concurrent accepts: one REVERSAL, every answer the same RESOLVED dispute', async () => {
    const { payer, payee, transfer } = await calls.paid(100, 500);
    const dispute = await calls.opened(payer, transfer.referenceId, { reason: 'WRONG_AMOUNT', amount: 40 });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => calls.answer(payee, dispute.referenceId, 'accept')),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const refunds = new Set(answers.map((a) => a.body.refundTransactionReferenceId));
    expect(refunds.size).toBe(1);
    const [refund] = [...refunds];
    expect(refund).toMatch(UUID);
    expect(answers[0].body).toEqual(
      expect.objectContaining({ status: 'RESOLVED', resolution: 'REFUNDED', overdue: false }),
    );
    expect(await reversalsOf(db, transfer.referenceId)).toEqual({
      amounts: ['40.0000'],
      reversed: '40.0000',
      status: 'PARTIALLY_REVERSED',
    });
    expect(await balanceOf(db, payer.upiId)).toBe('440.0000');
    expect(await balanceOf(db, payee.upiId)).toBe('60.0000');
    const refundTransaction = await t.api.get(`/api/v1/transactions/${refund}`, payer.token);
    expect(refundTransaction.body).toEqual(
      expect.objectContaining({ type: 'REVERSAL', amount: 40, originalReferenceId: transfer.referenceId }),
    );
    const read = await calls.read(payer, dispute.referenceId);
    expect(read.body.history.map((line: any) => [line.status, line.byUpiId])).toEqual([
      ['OPEN', payer.upiId],
      ['RESOLVED', payee.upiId],
    ]);
    expect((await disputeEvents(db, dispute.referenceId)).map((e) => e.type)).toEqual([
      'DisputeOpened',
      'DisputeResolved',
    ]);
    // Resolved is final: nothing else answers it.
    expect((await calls.answer(payee, dispute.referenceId, 'reject', { note: 'late' })).status).toBe(409);
    expect((await calls.answer(payer, dispute.referenceId, 'withdraw')).status).toBe(409);
    // The transfer may be disputed again for what remains.
    const again = await calls.opened(payer, transfer.referenceId);
    expect((await calls.read(payer, again.referenceId)).body.amount).toBe(60);
  });

  it('a refund racing a reversal never returns more than the transfer', async () => {
    for (let round = 0; round < 4; round++) {
      const { payer, payee, transfer } = await calls.paid(100, 100);
      const dispute = await calls.opened(payer, transfer.referenceId);
      const reverse = () =>
        t.api.post(
          `/api/v1/transactions/${transfer.referenceId}/reversals`,
          { amount: 60 },
          {
            token: payee.token,
            headers: { 'idempotency-key': newIdempotencyKey() },
          },
        );
      const [accepted, reversed] = await Promise.all([calls.answer(payee, dispute.referenceId, 'accept'), reverse()]);
      expect(accepted.status).toBe(200);
      expect([201, 422]).toContain(reversed.status);
      const after = await reversalsOf(db, transfer.referenceId);
      expect(after.reversed).toBe('100.0000');
      expect(after.status).toBe('REVERSED');
      const sum = after.amounts.reduce((total, amount) => total + Number(amount), 0);
      expect(sum).toBe(100);
      expect(after.amounts.length).toBe(reversed.status === 201 ? 2 : 1);
      expect(await balanceOf(db, payer.upiId)).toBe('100.0000');
      expect(await balanceOf(db, payee.upiId)).toBe('0.0000');
    }
  });

  it('reject escalates; the admin refunds; a refund the payee cannot cover is 422 and stays ESCALATED', async () => {
    const { payer, payee, transfer } = await calls.paid(100, 100);
    const elsewhere = await calls.user(0);
    await calls.pay(payee, elsewhere, 100); // the payee spent it all
    const dispute = await calls.opened(payer, transfer.referenceId, { reason: 'NOT_RECEIVED' });
    const missingNote = await calls.answer(payee, dispute.referenceId, 'reject', {});
    expect([missingNote.status, Object.keys(missingNote.body.errors ?? {})]).toEqual([422, ['note']]);
    const rejected = await calls.answer(payee, dispute.referenceId, 'reject', { note: 'Goods delivered' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual(expect.objectContaining({ status: 'ESCALATED', resolution: null, overdue: false }));
    expect(rejected.body.history[1]).toEqual({
      at: expect.stringMatching(ISO),
      status: 'ESCALATED',
      byUpiId: payee.upiId,
      note: 'Goods delivered',
    });
    // The payee's answers end once it is escalated.
    expect((await calls.answer(payee, dispute.referenceId, 'accept')).status).toBe(409);

    const uncovered = await calls.resolve(admin, dispute.referenceId, { decision: 'REFUND', note: 'Refund due' });
    expect([uncovered.status, uncovered.body.type]).toEqual([422, expect.stringMatching(/\/insufficient-balance$/)]);
    expect((await calls.read(payer, dispute.referenceId)).body.status).toBe('ESCALATED');
    expect(await balanceOf(db, payer.upiId)).toBe('0.0000');

    const escalated = await t.api.get('/api/v1/admin/disputes?status=ESCALATED&size=100', admin.token);
    expect(escalated.status).toBe(200);
    expect(escalated.body.content.map((d: any) => d.referenceId)).toContain(dispute.referenceId);
    expect(escalated.body.content.every((d: any) => d.status === 'ESCALATED')).toBe(true);
    expect((await t.api.get('/api/v1/admin/disputes', payer.token)).status).toBe(403);

    await calls.pay(elsewhere, payee, 70);
    const partial = await calls.resolve(admin, dispute.referenceId, { decision: 'REFUND', amount: 70, note: 'Half' });
    expect(partial.status).toBe(200);
    expect(partial.body).toEqual(expect.objectContaining({ status: 'RESOLVED', resolution: 'REFUNDED' }));
    expect(partial.body.history.map((line: any) => [line.status, line.byUpiId])).toEqual([
      ['OPEN', payer.upiId],
      ['ESCALATED', payee.upiId],
      ['RESOLVED', admin.upiId],
    ]);
    expect(await balanceOf(db, payer.upiId)).toBe('70.0000');
    expect((await disputeEvents(db, dispute.referenceId)).map((e) => e.type)).toEqual([
      'DisputeOpened',
      'DisputeEscalated',
      'DisputeResolved',
    ]);
  });

  it('the admin may reject an escalated dispute; the payer may withdraw one not yet resolved', async () => {
    const first = await calls.paid(100);
    const dispute = await calls.opened(first.payer, first.transfer.referenceId);
    await calls.answer(first.payee, dispute.referenceId, 'reject', { note: 'No' });
    const rejected = await calls.resolve(admin, dispute.referenceId, { decision: 'REJECT', note: 'Delivered' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual(
      expect.objectContaining({ status: 'RESOLVED', resolution: 'REJECTED', refundTransactionReferenceId: null }),
    );
    expect(await balanceOf(db, first.payee.upiId)).toBe('100.0000');

    const second = await calls.paid(100);
    const open = await calls.opened(second.payer, second.transfer.referenceId);
    const withdrawn = await calls.answer(second.payer, open.referenceId, 'withdraw');
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toEqual(expect.objectContaining({ status: 'RESOLVED', resolution: 'WITHDRAWN' }));
    expect((await calls.answer(second.payer, open.referenceId, 'withdraw')).status).toBe(200);
    expect((await calls.answer(second.payee, open.referenceId, 'accept')).status).toBe(409);
    expect(await balanceOf(db, second.payee.upiId)).toBe('100.0000');

    const third = await calls.paid(100);
    const escalated = await calls.opened(third.payer, third.transfer.referenceId);
    await calls.answer(third.payee, escalated.referenceId, 'reject', { note: 'No' });
    const late = await calls.answer(third.payer, escalated.referenceId, 'withdraw');
    expect([late.status, late.body.resolution]).toEqual([200, 'WITHDRAWN']);
    expect((await calls.resolve(admin, escalated.referenceId, { decision: 'REFUND', note: 'x' })).status).toBe(409);
  });

  it('caps: a sixth dispute on one payer-payee pair and an eleventh by one payer are 422 dispute-limit-exceeded', async () => {
    const payer = await calls.user(10_000);
    const [bob, carol, dave] = await Promise.all([calls.user(0), calls.user(0), calls.user(0)]);
    const toBob = [];
    for (let i = 0; i < 6; i++) toBob.push(await calls.pay(payer, bob, 10));
    for (const transfer of toBob.slice(0, 5)) {
      const dispute = await calls.opened(payer, transfer.referenceId);
      await calls.answer(payer, dispute.referenceId, 'withdraw'); // withdrawn ones still count
    }
    const sixth = await calls.open(payer, toBob[5].referenceId);
    expect([sixth.status, sixth.body.type]).toEqual([422, expect.stringMatching(/\/dispute-limit-exceeded$/)]);
    expect(sixth.body.detail).toContain('payer and payee');

    const others = [];
    for (const payee of [carol, carol, carol, carol, dave, dave]) others.push(await calls.pay(payer, payee, 10));
    for (const transfer of others.slice(0, 5)) await calls.opened(payer, transfer.referenceId);
    const eleventh = await calls.open(payer, others[5].referenceId);
    expect([eleventh.status, eleventh.body.type]).toEqual([422, expect.stringMatching(/\/dispute-limit-exceeded$/)]);
    expect(eleventh.body.detail).toContain('per payer in a rolling 30 days');

    // Racing openings cannot pass the cap together: a fresh payer, five disputes at once on one pair, then more.
    const racer = await calls.user(10_000);
    const transfers = [];
    for (let i = 0; i < 8; i++) transfers.push(await calls.pay(racer, bob, 1));
    const raced = await Promise.all(transfers.map((transfer) => calls.open(racer, transfer.referenceId)));
    expect(raced.filter((r) => r.status === 201)).toHaveLength(5);
    expect(raced.filter((r) => r.status === 422)).toHaveLength(3);
  });

  it("lists a user's disputes by role and status with cursor paging; only the owner", async () => {
    const { payer, payee, transfer } = await calls.paid(100);
    const second = await calls.pay(payer, payee, 20);
    const a = await calls.opened(payer, transfer.referenceId);
    const b = await calls.opened(payer, second.referenceId);
    await calls.answer(payer, a.referenceId, 'withdraw');

    const raised = await t.api.get(`/api/v1/users/${payer.referenceId}/disputes?size=1`, payer.token);
    expect(raised.status).toBe(200);
    expect(raised.body.content.map((d: any) => d.referenceId)).toEqual([b.referenceId]);
    expect(raised.body.totalElements).toBe(2);
    const next = await t.api.get(
      `/api/v1/users/${payer.referenceId}/disputes?size=1&cursor=${raised.body.nextCursor}`,
      payer.token,
    );
    expect(next.body.content.map((d: any) => d.referenceId)).toEqual([a.referenceId]);
    expect(next.body.nextCursor).toBeNull();

    const received = await t.api.get(
      `/api/v1/users/${payee.referenceId}/disputes?role=received&status=OPEN`,
      payee.token,
    );
    expect(received.body.content.map((d: any) => d.referenceId)).toEqual([b.referenceId]);
    expect(
      (await t.api.get(`/api/v1/users/${payee.referenceId}/disputes?role=raised`, payee.token)).body.content,
    ).toEqual([]);
    expect((await t.api.get(`/api/v1/users/${payer.referenceId}/disputes`, payee.token)).status).toBe(403);
    expect((await t.api.get(`/api/v1/users/${payer.referenceId}/disputes?role=both`, payer.token)).status).toBe(422);
    expect((await t.api.get(`/api/v1/users/${payer.referenceId}/disputes?status=LOST`, payer.token)).status).toBe(422);
  });

  it('delivers dispute events to the webhook endpoints subscribed to their types', async () => {
    const endpoint = await t.api.post(
      '/api/v1/admin/webhooks',
      { url: 'http://127.0.0.1:9/disputes', events: ['DisputeOpened', 'DisputeResolved'] },
      { token: admin.token },
    );
    expect(endpoint.status).toBe(201);
    try {
      const { payer, payee, transfer } = await calls.paid(10);
      const dispute = await calls.opened(payer, transfer.referenceId);
      await calls.answer(payee, dispute.referenceId, 'reject', { note: 'No' });
      await calls.answer(payer, dispute.referenceId, 'withdraw');
      const events = await disputeEvents(db, dispute.referenceId);
      expect(events.map((event) => event.type)).toEqual(['DisputeOpened', 'DisputeEscalated', 'DisputeResolved']);
      const deliveries = await t.api.get(`/api/v1/admin/webhooks/${endpoint.body.id}/deliveries`, admin.token);
      const delivered = new Map(deliveries.body.map((d: any) => [d.eventId, d.eventType]));
      expect(events.map((event) => delivered.get(event.payload.eventId))).toEqual([
        'DisputeOpened',
        undefined,
        'DisputeResolved',
      ]);
    } finally {
      await t.api.request('DELETE', `/api/v1/admin/webhooks/${endpoint.body.id}`, { token: admin.token });
    }
  });

  it('conserves money: every balance matches its ledger, and the audit passes', async () => {
    await calls.expectMoneyConserved(db, admin);
  });
});
