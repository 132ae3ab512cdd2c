import { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { balanceOf, createScratchDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Holds on a database of their own, so the sum of every balance (treasury and holds accounts
 * included) and the audit speak of this file's movements alone. Expiry is brought forward by
 * moving expires_at into the past in the database: the shortest hold the API takes is 60 s.
 */
describe('holds', () => {
  let url: string;
  let drop: () => Promise<void>;
  let t: TestApp;
  /** A second instance on the same database: expiry on two instances, and a low rate limit. */
  let second: TestApp;
  let db: Client;
  let admin: RegisteredUser;
  const adminUpiId = uniqueUpiId('admin');
  const ours: string[] = [];

  beforeAll(async () => {
    ({ url, drop } = await createScratchDatabase());
    t = await startTestApp({ DATABASE_URL: url, ADMIN_UPI_IDS: adminUpiId, RATE_LIMIT_PER_SECOND: '1000' });
    second = await startTestApp({ DATABASE_URL: url, RATE_LIMIT_PER_SECOND: '2' });
    db = new Client({ connectionString: url });
    await db.connect();
    admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
  }, 90_000);

  afterAll(async () => {
    await db.end();
    await Promise.all([t.close(), second.close()]);
    await drop();
  });

  const user = async (balance: number | string) => {
    const registered = await t.api.registerUser({ balance });
    ours.push(registered.referenceId);
    return registered;
  };
  const place = (payer: RegisteredUser, body: Record<string, unknown>, key = newIdempotencyKey(), api = t.api) =>
    api.post('/api/v1/holds', body, { token: payer.token, headers: { 'idempotency-key': key } });
  const capture = (
    payee: RegisteredUser,
    hold: string,
    body: Record<string, unknown> = {},
    key = newIdempotencyKey(),
  ) => t.api.post(`/api/v1/holds/${hold}/captures`, body, { token: payee.token, headers: { 'idempotency-key': key } });
  const release = (caller: RegisteredUser, hold: string) =>
    t.api.post(`/api/v1/holds/${hold}/release`, {}, { token: caller.token });
  const read = (caller: RegisteredUser, hold: string) => t.api.get(`/api/v1/holds/${hold}`, caller.token);
  const expireNow = (hold: string) =>
    db.query(`UPDATE holds SET expires_at = now() - interval '1 second' WHERE reference_id = $1`, [hold]);
  const holdsAccounts = async () =>
    (await db.query<{ s: string }>(`SELECT sum(balance)::text AS s FROM users WHERE kind = 'HOLDS'`)).rows[0].s;
  const events = async (hold: string) =>
    (
      await db.query<{ event_type: string; payload: string }>(
        `SELECT event_type, payload FROM outbox_events WHERE payload::jsonb->>'holdReferenceId' = $1 ORDER BY id`,
        [hold],
      )
    ).rows.map((row) => ({ type: row.event_type, payload: JSON.parse(row.payload) as Record<string, unknown> }));

  it('places a hold: the amount leaves the payer at once into the holds account, with ledger entries', async () => {
    const [alice, bob] = await Promise.all([user(500), user(0)]);
    const placed = await place(alice, { payeeUpiId: bob.upiId, amount: 200, note: 'hotel deposit' });
    expect(placed.status).toBe(201);
    expect(placed.body).toEqual({
      referenceId: expect.stringMatching(UUID),
      payerUpiId: alice.upiId,
      payeeUpiId: bob.upiId,
      amount: 200,
      capturedAmount: 0,
      remainingAmount: 200,
      status: 'HELD',
      note: 'hotel deposit',
      createdAt: expect.stringMatching(ISO),
      expiresAt: expect.stringMatching(ISO),
      closedAt: null,
      captures: [],
    });
    expect(placed.text).toContain('"amount":200.0000');
    expect(placed.headers.get('location')).toBe(`/api/v1/holds/${placed.body.referenceId}`);
    const body = placed.body as { createdAt: string; expiresAt: string; referenceId: string };
    expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(86_400_000);
    expect(await balanceOf(db, alice.upiId)).toBe('300.0000');
    const ledger = await t.api.get(`/api/v1/users/${alice.referenceId}/ledger`, alice.token);
    expect(ledger.body.content[0]).toEqual(
      expect.objectContaining({ entryType: 'DEBIT', amount: 200, transactionReferenceId: body.referenceId }),
    );
    expect((await read(bob, body.referenceId)).body).toEqual(placed.body);
    expect((await read(alice, body.referenceId)).status).toBe(200);
    const stranger = await user(0);
    expectProblem(await read(stranger, body.referenceId), 403, 'forbidden-operation');
    expectProblem(await read(alice, '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f'), 404, 'hold-not-found');
    expect((await events(body.referenceId)).map((event) => event.type)).toEqual(['HoldPlaced']);
    const listed = await t.api.get(`/api/v1/users/${bob.referenceId}/holds?role=payee&status=HELD`, bob.token);
    expect(listed.body.content).toEqual([placed.body]);
    expect((await t.api.get(`/api/v1/users/${bob.referenceId}/holds`, bob.token)).body.content).toEqual([]);
    expectProblem(await t.api.get(`/api/v1/users/${bob.referenceId}/holds`, alice.token), 403);
    expectProblem(await t.api.get(`/api/v1/users/${bob.referenceId}/holds?role=x`, bob.token), 422);
  });

  it('refuses what a transfer refuses: balance, validation, self, unknown payee, limits, frozen, rate limit', async () => {
    const [alice, bob] = await Promise.all([user(100), user(0)]);
    expectProblem(await place(alice, { payeeUpiId: bob.upiId, amount: 100.01 }), 422, 'insufficient-balance');
    expectProblem(await place(alice, { payeeUpiId: bob.upiId, amount: 0 }), 422, 'validation-failed');
    expectProblem(await place(alice, { payeeUpiId: bob.upiId, amount: 5, expiresInSeconds: 59 }), 422);
    expectProblem(await place(alice, { payeeUpiId: bob.upiId, amount: 5, expiresInSeconds: 2_592_001 }), 422);
    expectProblem(await place(alice, { payeeUpiId: alice.upiId, amount: 5 }), 400, 'self-transfer');
    expectProblem(await place(alice, { payeeUpiId: uniqueUpiId('nobody'), amount: 5 }), 404, 'user-not-found');
    expectProblem(
      await t.api.post('/api/v1/holds', { payeeUpiId: bob.upiId, amount: 5 }, { token: alice.token }),
      400,
      'idempotency-key-missing',
    );
    // Limits: a hold counts as a transfer of its amount; its capture does not count again.
    const put = await t.api.request('PUT', `/api/v1/admin/users/${alice.referenceId}/limits`, {
      token: admin.token,
      body: { dailyAmountMax: 50, dailyCountMax: 2 },
    });
    expect(put.status).toBe(200);
    const held = await place(alice, { payeeUpiId: bob.upiId, amount: 40 });
    expect(held.status).toBe(201);
    expect((await capture(bob, held.body.referenceId, { amount: 40 })).status).toBe(201);
    const over = await place(alice, { payeeUpiId: bob.upiId, amount: 11 });
    expectProblem(over, 422, 'limit-exceeded');
    expect(over.body.limit).toEqual(expect.objectContaining({ name: 'daily-amount', max: 50, used: 40 }));
    expect((await t.api.get(`/api/v1/users/${alice.referenceId}/limits`, alice.token)).body.daily).toEqual(
      expect.objectContaining({ amountUsed: 40, countUsed: 1 }),
    );
    // Frozen payer or payee.
    const freeze = (who: RegisteredUser, action: 'freeze' | 'unfreeze') =>
      t.api.post(`/api/v1/admin/users/${who.referenceId}/${action}`, { reason: 'test' }, { token: admin.token });
    expect((await freeze(bob, 'freeze')).status).toBe(200);
    const frozen = await place(alice, { payeeUpiId: bob.upiId, amount: 1 });
    expectProblem(frozen, 422, 'account-frozen');
    expect(frozen.body.detail).toContain('receiver');
    expect((await freeze(bob, 'unfreeze')).status).toBe(200);
    expect(await balanceOf(db, alice.upiId)).toBe('60.0000');
  });

  it('answers 429 past the per-user rate limit, like transfers', async () => {
    const [alice, bob] = await Promise.all([user(100), user(0)]);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => place(alice, { payeeUpiId: bob.upiId, amount: 1 }, undefined, second.api)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 201 || status === 429)).toBe(true);
    expect(answers.find((answer) => answer.status === 429)!.headers.get('retry-after')).toBe('1');
  });

  it('places once per Idempotency-Key: a retry replays the same bytes and moves nothing more', async () => {
    const [alice, bob] = await Promise.all([user(100), user(0)]);
    const key = newIdempotencyKey();
    const first = await place(alice, { payeeUpiId: bob.upiId, amount: 30 }, key);
    const again = await place(alice, { payeeUpiId: bob.upiId, amount: 30 }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await place(alice, { payeeUpiId: bob.upiId, amount: 31 }, key), 400, 'idempotency-key-reused');
    expect(await balanceOf(db, alice.upiId)).toBe('70.0000');
  });

  it('captures in parts up to the amount, each a TRANSFER with holdReferenceId; then CAPTURED and 409', async () => {
    const [alice, bob, carol] = await Promise.all([user(500), user(0), user(0)]);
    const hold = (await place(alice, { payeeUpiId: bob.upiId, amount: 100, note: 'stay' })).body.referenceId as string;
    expectProblem(await capture(alice, hold, { amount: 10 }), 403, 'forbidden-operation');
    expectProblem(await capture(carol, hold), 403);
    expectProblem(await capture(bob, '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f'), 404, 'hold-not-found');
    const key = newIdempotencyKey();
    const part = await capture(bob, hold, { amount: 60.5 }, key);
    expect(part.status).toBe(201);
    expect(part.body).toEqual({
      transactionId: expect.any(Number),
      referenceId: expect.stringMatching(UUID),
      senderUpiId: alice.upiId,
      receiverUpiId: bob.upiId,
      amount: 60.5,
      status: 'COMPLETED',
      type: 'TRANSFER',
      note: 'stay',
      createdAt: expect.stringMatching(ISO),
      holdReferenceId: hold,
    });
    expect((await capture(bob, hold, { amount: 60.5 }, key)).text).toBe(part.text);
    const read1 = await t.api.get(`/api/v1/transactions/${part.body.referenceId}`, alice.token);
    expect(read1.body.holdReferenceId).toBe(hold);
    const exceeded = await capture(bob, hold, { amount: 40 });
    expectProblem(exceeded, 422, 'hold-exceeded');
    expect(exceeded.body.detail).toBe('The capture of 40.0000 exceeds the 39.5000 that remains on the hold');
    const rest = await capture(bob, hold);
    expect(rest.body.amount).toBe(39.5);
    const closed = (await read(alice, hold)).body;
    expect(closed).toEqual(
      expect.objectContaining({
        status: 'CAPTURED',
        capturedAmount: 100,
        remainingAmount: 0,
        closedAt: expect.any(String),
      }),
    );
    expect(closed.captures).toEqual([
      { transactionReferenceId: part.body.referenceId, amount: 60.5, at: part.body.createdAt },
      { transactionReferenceId: rest.body.referenceId, amount: 39.5, at: rest.body.createdAt },
    ]);
    expectProblem(await capture(bob, hold, { amount: 1 }), 409, 'hold-not-open');
    expectProblem(await release(bob, hold), 409, 'hold-not-open');
    expect([await balanceOf(db, alice.upiId), await balanceOf(db, bob.upiId)]).toEqual(['400.0000', '100.0000']);
    expect((await events(hold)).map((event) => event.type)).toEqual(['HoldPlaced', 'HoldCaptured', 'HoldCaptured']);
  });

  it('20 concurrent captures of an amount that fits 10 never exceed it', async () => {
    const [alice, bob] = await Promise.all([user(1000), user(0)]);
    // 105 fits ten captures of 10; the other ten find 5 left.
    const hold = (await place(alice, { payeeUpiId: bob.upiId, amount: 105 })).body.referenceId as string;
    const answers = await Promise.all(Array.from({ length: 20 }, () => capture(bob, hold, { amount: 10 })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(10).fill(201), ...Array(10).fill(422)]);
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      expectProblem(refused, 422, 'hold-exceeded');
    }
    expect((await read(bob, hold)).body).toEqual(
      expect.objectContaining({ status: 'HELD', capturedAmount: 100, remainingAmount: 5 }),
    );
    expect(await balanceOf(db, bob.upiId)).toBe('100.0000');
    expect(await balanceOf(db, alice.upiId)).toBe('895.0000');
  });

  it('releases the rest to the payer (the payee only): RELEASED, HoldReleased', async () => {
    const [alice, bob] = await Promise.all([user(100), user(0)]);
    const hold = (await place(alice, { payeeUpiId: bob.upiId, amount: 80 })).body.referenceId as string;
    expect((await capture(bob, hold, { amount: 30 })).status).toBe(201);
    expectProblem(await release(alice, hold), 403, 'forbidden-operation');
    const released = await release(bob, hold);
    expect(released.status).toBe(200);
    expect(released.body).toEqual(
      expect.objectContaining({
        status: 'RELEASED',
        capturedAmount: 30,
        remainingAmount: 50,
        closedAt: expect.any(String),
      }),
    );
    expect([await balanceOf(db, alice.upiId), await balanceOf(db, bob.upiId)]).toEqual(['70.0000', '30.0000']);
    expectProblem(await release(bob, hold), 409, 'hold-not-open');
    const kinds = await events(hold);
    expect(kinds.map((event) => event.type)).toEqual(['HoldPlaced', 'HoldCaptured', 'HoldReleased']);
    expect(kinds[2].payload).toEqual(expect.objectContaining({ returnedAmount: '50.0000', status: 'RELEASED' }));
  });

  it('expires a due hold on two instances exactly once: the rest returns to the payer, EXPIRED', async () => {
    {
      const [alice, bob] = await Promise.all([user(300), user(0)]);
      const holds: string[] = [];
      for (let i = 0; i < 6; i++) {
        const placed = await place(alice, { payeeUpiId: bob.upiId, amount: 20, expiresInSeconds: 60 });
        holds.push(placed.body.referenceId as string);
      }
      expect((await capture(bob, holds[0], { amount: 5 })).status).toBe(201);
      expect(await balanceOf(db, alice.upiId)).toBe('180.0000');
      for (const hold of holds) await expireNow(hold);
      // Past expiresAt and before the job: no capture any more.
      expectProblem(await capture(bob, holds[1], { amount: 1 }), 409, 'hold-not-open');
      const allExpired = async () => {
        for (const hold of holds) if ((await read(alice, hold)).body.status !== 'EXPIRED') return false;
        return true;
      };
      await waitUntil(allExpired, 'every hold to expire', 15_000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await balanceOf(db, alice.upiId)).toBe('295.0000');
      for (const hold of holds) {
        expect((await events(hold)).filter((event) => event.type === 'HoldExpired')).toHaveLength(1);
      }
      const returns = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ledger_entries l JOIN users u ON u.id = l.user_id
         WHERE u.upi_id = $1 AND l.entry_type = 'CREDIT' AND l.transaction_id IS NULL`,
        [alice.upiId],
      );
      // The opening balance and one return per hold.
      expect(returns.rows[0].n).toBe(1 + holds.length);
    }
  });

  it('conserves money: every balance with the treasury and the holds accounts sums to 0, and the audit passes', async () => {
    const [alice, bob] = await Promise.all([user(50), user(0)]);
    expect((await place(alice, { payeeUpiId: bob.upiId, amount: 25 })).status).toBe(201);
    expect(await holdsAccounts()).not.toBe('0.0000');
    expect((await db.query<{ s: string }>('SELECT sum(balance)::text AS s FROM users')).rows[0].s).toBe('0.0000');
    expect(await findLedgerViolations(db)).toEqual([]);
    expect(await findLedgerViolations(db, { userReferenceIds: ours })).toEqual([]);
    const audit = await t.api.get('/api/v1/admin/audit', admin.token);
    expect(audit.status).toBe(200);
    expect(audit.body).toEqual(expect.objectContaining({ ok: true, globalSum: 0 }));
  });
});
