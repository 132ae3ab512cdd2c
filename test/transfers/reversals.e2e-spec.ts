import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { balanceOf, connectTestDatabase, withScratchDatabase } from '../support/db';
import { TestBroker, TopicReader } from '../support/kafka';
import { startTestApp, type TestApp } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /api/v1/transactions/{referenceId}/reversals', () => {
  let t: TestApp;
  let db: Client;
  let admin: RegisteredUser;
  const adminUpiId = uniqueUpiId('admin');

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000', ADMIN_UPI_IDS: adminUpiId, DB_POOL_SIZE: '20' });
    db = await connectTestDatabase();
    admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
  });

  afterAll(async () => {
    await db.end();
    await t.close();
  });

  function reverse(
    caller: { token: string },
    referenceId: string,
    body: Record<string, unknown> = {},
    key: string = newIdempotencyKey(),
  ) {
    return t.api.post(`/api/v1/transactions/${referenceId}/reversals`, body, {
      token: caller.token,
      headers: { 'idempotency-key': key },
    });
  }

  /** Alice pays Bob `amount`; returns both and the transfer body. */
  async function paid(amount: number | string = 100, aliceBalance = 500, bobBalance = 0) {
    const [alice, bob] = await Promise.all([
      t.api.registerUser({ balance: aliceBalance }),
      t.api.registerUser({ balance: bobBalance }),
    ]);
    const transfer = await t.api.transfer(alice, bob.upiId, amount, { note: 'order 17' });
    expect(transfer.status).toBe(201);
    return { alice, bob, transfer: transfer.body as { referenceId: string; transactionId: number } };
  }

  const read = (user: { token: string }, referenceId: string) =>
    t.api.get(`/api/v1/transactions/${referenceId}`, user.token);

  it('refunds part, then the rest: REVERSAL transactions, status and reversedAmount on the original, ledger rows', async () => {
    const { alice, bob, transfer } = await paid('100.5');
    const partial = await reverse(bob, transfer.referenceId, { amount: '40.25', note: 'item returned' });
    expect(partial.status).toBe(201);
    expect(partial.body).toEqual({
      transactionId: expect.any(Number),
      referenceId: expect.stringMatching(UUID),
      senderUpiId: bob.upiId,
      receiverUpiId: alice.upiId,
      amount: 40.25,
      status: 'COMPLETED',
      type: 'REVERSAL',
      note: 'item returned',
      createdAt: expect.stringMatching(/Z$/),
      originalReferenceId: transfer.referenceId,
    });
    expect(partial.headers.get('location')).toBe(`/api/v1/transactions/${partial.body.referenceId}`);
    expect(await balanceOf(db, alice.upiId)).toBe('439.7500');
    expect(await balanceOf(db, bob.upiId)).toBe('60.2500');

    const afterPartial = await read(alice, transfer.referenceId);
    expect(afterPartial.body).toEqual(
      expect.objectContaining({ status: 'PARTIALLY_REVERSED', reversedAmount: 40.25, amount: 100.5 }),
    );
    expect(afterPartial.text).toContain('"reversedAmount":40.2500');

    // No amount: all that remains.
    const rest = await reverse(bob, transfer.referenceId);
    expect(rest.status).toBe(201);
    expect(rest.body.amount).toBe(60.25);
    expect(await balanceOf(db, alice.upiId)).toBe('500.0000');
    expect(await balanceOf(db, bob.upiId)).toBe('0.0000');
    const afterFull = await read(bob, transfer.referenceId);
    expect(afterFull.body).toEqual(expect.objectContaining({ status: 'REVERSED', reversedAmount: 100.5 }));
    // The reversal is readable by both parties, as any transaction.
    expect((await read(alice, rest.body.referenceId)).body).toEqual(rest.body);

    const entries = await db.query(
      `SELECT u.upi_id, l.entry_type, l.amount::text, l.balance_before::text, l.balance_after::text
       FROM ledger_entries l JOIN users u ON u.id = l.user_id
       WHERE l.transaction_reference_id = $1 ORDER BY l.entry_type DESC`,
      [partial.body.referenceId],
    );
    expect(entries.rows).toEqual([
      {
        upi_id: bob.upiId,
        entry_type: 'DEBIT',
        amount: '40.2500',
        balance_before: '100.5000',
        balance_after: '60.2500',
      },
      {
        upi_id: alice.upiId,
        entry_type: 'CREDIT',
        amount: '40.2500',
        balance_before: '399.5000',
        balance_after: '439.7500',
      },
    ]);
    const events = await db.query(
      `SELECT event_type, aggregate_key, payload FROM outbox_events
       WHERE payload::jsonb->>'transactionReferenceId' = $1`,
      [partial.body.referenceId],
    );
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0].event_type).toBe('TransferReversed');
    expect(events.rows[0].aggregate_key).toBe(bob.upiId);
    expect(JSON.parse(events.rows[0].payload)).toEqual({
      eventId: expect.stringMatching(UUID),
      eventType: 'TransferReversed',
      occurredAt: partial.body.createdAt,
      transactionId: partial.body.transactionId,
      transactionReferenceId: partial.body.referenceId,
      senderUpiId: bob.upiId,
      receiverUpiId: alice.upiId,
      amount: '40.2500',
      currency: 'INR',
      note: 'item returned',
      originalTransactionReferenceId: transfer.referenceId,
    });
    expect(await findLedgerViolations(db, { userReferenceIds: [alice.referenceId, bob.referenceId] })).toEqual([]);
  });

  it('a plain transfer reads exactly as before: no reversal fields until it is reversed', async () => {
    const { alice, transfer } = await paid(10);
    const body = (await read(alice, transfer.referenceId)).body;
    expect(body).toEqual(transfer);
    expect(Object.keys(body)).not.toContain('reversedAmount');
    expect(Object.keys(body)).not.toContain('originalReferenceId');
  });

  it('answers 422 reversal-exceeds-remaining above what remains, and once fully reversed', async () => {
    const { alice, bob, transfer } = await paid(50);
    const tooMuch = await reverse(bob, transfer.referenceId, { amount: '50.0001' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.type).toMatch(/\/reversal-exceeds-remaining$/);
    expect((await reverse(bob, transfer.referenceId, { amount: 30 })).status).toBe(201);
    const overRest = await reverse(bob, transfer.referenceId, { amount: 20.01 });
    expect(overRest.status).toBe(422);
    expect(overRest.body.type).toMatch(/\/reversal-exceeds-remaining$/);
    expect((await reverse(bob, transfer.referenceId, { amount: 20 })).status).toBe(201);
    const nothingLeft = await reverse(bob, transfer.referenceId);
    expect(nothingLeft.status).toBe(422);
    expect(nothingLeft.body.type).toMatch(/\/reversal-exceeds-remaining$/);
    expect(await balanceOf(db, alice.upiId)).toBe('500.0000');
    expect(await balanceOf(db, bob.upiId)).toBe('0.0000');
  });

  it('answers 422 insufficient-balance when the receiver has spent the money, nothing changes', async () => {
    const { alice, bob, transfer } = await paid(80);
    const carol = await t.api.registerUser({ balance: 0 });
    expect((await t.api.transfer(bob, carol.upiId, 70)).status).toBe(201);
    const response = await reverse(bob, transfer.referenceId, { amount: 11 });
    expect(response.status).toBe(422);
    expect(response.body.type).toMatch(/\/insufficient-balance$/);
    expect(await balanceOf(db, bob.upiId)).toBe('10.0000');
    expect(await balanceOf(db, alice.upiId)).toBe('420.0000');
    expect((await read(alice, transfer.referenceId)).body.status).toBe('COMPLETED');
    expect((await reverse(bob, transfer.referenceId, { amount: 10 })).status).toBe(201);
  });

  it('answers 422 not-reversible for a reversal or a deposit', async () => {
    const { bob, alice, transfer } = await paid(30);
    const reversal = await reverse(bob, transfer.referenceId, { amount: 5 });
    expect(reversal.status).toBe(201);
    const ofReversal = await reverse(alice, reversal.body.referenceId);
    expect(ofReversal.status).toBe(422);
    expect(ofReversal.body.type).toMatch(/\/not-reversible$/);

    const deposit = await t.api.post(
      '/api/v1/admin/deposits',
      { upiId: alice.upiId, amount: 15 },
      { token: admin.token, headers: { 'idempotency-key': newIdempotencyKey() } },
    );
    expect(deposit.status).toBe(201);
    const ofDeposit = await reverse(alice, deposit.body.referenceId);
    expect(ofDeposit.status).toBe(422);
    expect(ofDeposit.body.type).toMatch(/\/not-reversible$/);
    expect(await balanceOf(db, alice.upiId)).toBe('490.0000');
  });

  it('only the receiver may reverse: 403 for the sender and for a stranger, 404 for an unknown transaction', async () => {
    const { alice, bob, transfer } = await paid(25);
    const stranger = await t.api.registerUser({ balance: 0 });
    for (const caller of [alice, stranger]) {
      const response = await reverse(caller, transfer.referenceId);
      expect(response.status).toBe(403);
      expect(response.body.type).toMatch(/\/forbidden-operation$/);
    }
    const unknown = await reverse(bob, randomUUID());
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toMatch(/\/transaction-not-found$/);
    const badId = await reverse(bob, 'not-a-uuid');
    expect(badId.status).toBe(400);
    const anonymous = await t.api.post(
      `/api/v1/transactions/${transfer.referenceId}/reversals`,
      {},
      { headers: { 'idempotency-key': newIdempotencyKey() } },
    );
    expect(anonymous.status).toBe(401);
    expect(await balanceOf(db, bob.upiId)).toBe('25.0000');
  });

  it.each([
    ['zero', { amount: 0 }],
    ['below the minimum', { amount: '0.0099' }],
    ['negative', { amount: -1 }],
    ['not a number', { amount: 'all' }],
    ['a note too long', { note: 'n'.repeat(256) }],
  ])('answers 422 for an amount %s, nothing changes', async (_case, body) => {
    const { bob, transfer } = await paid(10);
    const response = await reverse(bob, transfer.referenceId, body);
    expect(response.status).toBe(422);
    expect(response.body.errors).toBeDefined();
    expect(await balanceOf(db, bob.upiId)).toBe('10.0000');
  });

  it('follows the key rules: replay, reuse with another body is 400, a missing key is 400', async () => {
    const { alice, bob, transfer } = await paid(60);
    const key = newIdempotencyKey();
    const first = await reverse(bob, transfer.referenceId, { amount: 10 }, key);
    const replay = await reverse(bob, transfer.referenceId, { amount: '10.00' }, key);
    expect([first.status, replay.status]).toEqual([201, 201]);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const reused = await reverse(bob, transfer.referenceId, { amount: 11 }, key);
    expect(reused.status).toBe(400);
    expect(reused.body.type).toMatch(/\/idempotency-key-reused$/);
    const missing = await t.api.post(
      `/api/v1/transactions/${transfer.referenceId}/reversals`,
      {},
      { token: bob.token },
    );
    expect(missing.status).toBe(400);
    expect(missing.body.type).toMatch(/\/idempotency-key-missing$/);
    expect(await balanceOf(db, alice.upiId)).toBe('450.0000');
    expect((await read(alice, transfer.referenceId)).body.reversedAmount).toBe(10);
  });

  it('never exceeds the transfer under 50 concurrent partial reversals', async () => {
    const { alice, bob, transfer } = await paid(100, 100, 0);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => reverse(bob, transfer.referenceId, { amount: '3.0001' })),
    );
    const statuses = responses.map((r) => r.status);
    const created = statuses.filter((s) => s === 201).length;
    // 33 x 3.0001 = 99.0033 fits in 100; a 34th would not.
    expect(created).toBe(33);
    expect(statuses.filter((s) => s === 422)).toHaveLength(17);
    for (const rejected of responses.filter((r) => r.status === 422)) {
      expect(rejected.body.type).toMatch(/\/reversal-exceeds-remaining$/);
    }
    expect(await balanceOf(db, bob.upiId)).toBe('0.9967');
    expect(await balanceOf(db, alice.upiId)).toBe('99.0033');
    const original = (await read(alice, transfer.referenceId)).body;
    expect(original).toEqual(expect.objectContaining({ status: 'PARTIALLY_REVERSED', reversedAmount: 99.0033 }));
    expect(await findLedgerViolations(db, { userReferenceIds: [alice.referenceId, bob.referenceId] })).toEqual([]);
  });

  it('reverses concurrently in both directions between the same pair without deadlock', async () => {
    const [alice, bob] = await Promise.all([
      t.api.registerUser({ balance: 1000 }),
      t.api.registerUser({ balance: 1000 }),
    ]);
    const toBob = await Promise.all(Array.from({ length: 8 }, () => t.api.transfer(alice, bob.upiId, 10)));
    const toAlice = await Promise.all(Array.from({ length: 8 }, () => t.api.transfer(bob, alice.upiId, 10)));
    const responses = await Promise.all([
      ...toBob.map((r) => reverse(bob, r.body.referenceId)),
      ...toAlice.map((r) => reverse(alice, r.body.referenceId)),
      ...Array.from({ length: 8 }, (_, i) => t.api.transfer(i % 2 ? alice : bob, i % 2 ? bob.upiId : alice.upiId, 1)),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(24).fill(201));
    expect(await findLedgerViolations(db, { userReferenceIds: [alice.referenceId, bob.referenceId] })).toEqual([]);
  });
});

/** On a real broker and a scratch database, so no other file's relay publishes these rows. */
describe('the TransferReversed event on Kafka', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await TestBroker.start();
  }, 240_000);
  afterAll(() => {
    if (broker.controllable) broker.stop();
  });

  it('is published on the transfer topic next to the TransferCompleted, keyed by the refunding receiver', async () => {
    await withScratchDatabase(async (url) => {
      const topic = `transfers-${randomUUID()}`;
      const t = await startTestApp({ DATABASE_URL: url, KAFKA_BROKERS: broker.brokers, KAFKA_TOPIC: topic });
      let reader: TopicReader | undefined;
      try {
        const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 100 }), t.api.registerUser()]);
        const transfer = await t.api.transfer(alice, bob.upiId, 30, { note: 'shoes' });
        const reversal = await t.api.post(
          `/api/v1/transactions/${transfer.body.referenceId}/reversals`,
          { amount: '12.5', note: 'one returned' },
          { token: bob.token, headers: { 'idempotency-key': newIdempotencyKey() } },
        );
        expect([transfer.status, reversal.status]).toEqual([201, 201]);
        reader = await TopicReader.open(broker.brokers, topic);
        const records = await reader.waitFor((all) => all.length >= 2);
        await new Promise((resolve) => setTimeout(resolve, 1500)); // nothing more arrives
        expect(reader.records).toHaveLength(2);
        expect(records.map((r) => r.value.eventType).sort()).toEqual(['TransferCompleted', 'TransferReversed']);
        const reversed = records.find((r) => r.value.eventType === 'TransferReversed')!;
        expect(reversed.key).toBe(bob.upiId);
        expect(reversed.headers).toEqual({ eventId: reversed.value.eventId, eventType: 'TransferReversed' });
        expect(reversed.value).toEqual({
          eventId: expect.stringMatching(UUID),
          eventType: 'TransferReversed',
          occurredAt: reversal.body.createdAt,
          transactionId: reversal.body.transactionId,
          transactionReferenceId: reversal.body.referenceId,
          senderUpiId: bob.upiId,
          receiverUpiId: alice.upiId,
          amount: '12.5000',
          currency: 'INR',
          note: 'one returned',
          originalTransactionReferenceId: transfer.body.referenceId,
        });
      } finally {
        await reader?.close().catch(() => undefined);
        await t.close();
      }
    });
  });
});
