import type { Client } from 'pg';
import { newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { balanceOf, connectTestDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const DAILY_CAP = 1000;
const ADMIN = uniqueUpiId('limits-admin');
/** NPCI's profile with a smaller daily amount, so a burst reaches it; the rate limit out of the way. */
const ENV = {
  LIMITS_PROFILE: 'npci',
  TRANSFER_DAILY_AMOUNT_MAX: String(DAILY_CAP),
  RATE_LIMIT_PER_SECOND: '1000',
  ADMIN_UPI_IDS: ADMIN,
};

describe('limits and account controls over HTTP (LIMITS_PROFILE=npci, two instances, one database)', () => {
  let instances: [TestApp, TestApp];
  let db: Client;
  let admin: RegisteredUser;
  beforeAll(async () => {
    instances = await Promise.all([startTestApp(ENV), startTestApp(ENV)]);
    db = await connectTestDatabase();
    admin = await instances[0].api.registerUser({ upiId: ADMIN });
  });
  afterAll(async () => {
    await db.end();
    await Promise.all(instances.map((t) => t.close()));
  });
  const [first, second] = [() => instances[0].api, () => instances[1].api];
  const refusals = async (t: TestApp, limit: string) => {
    const text = (await t.api.get('/actuator/prometheus')).text;
    const line = text.split('\n').find((l) => l.startsWith(`payments_limit_refusals_total{limit="${limit}"}`));
    return Number(line?.split(' ').pop());
  };

  it('of 20 simultaneous transfers at the daily cap, across both instances, exactly the fitting ones pass', async () => {
    const [alice, bob] = await Promise.all([
      first().registerUser({ balance: 100000 }),
      second().registerUser({ balance: 0 }),
    ]);
    expect((await first().transfer(alice, bob.upiId, 300)).status).toBe(201);
    const before = await refusals(instances[0], 'daily-amount');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => instances[i % 2].api.transfer(alice, bob.upiId, 100)),
    );
    const created = responses.filter((r) => r.status === 201);
    const refused = responses.filter((r) => r.status === 422);
    expect([created.length, refused.length]).toEqual([7, 13]);
    for (const response of refused) {
      expectProblem(response, 422, 'limit-exceeded');
      expect(response.body.limit).toEqual({
        name: 'daily-amount',
        max: DAILY_CAP,
        used: DAILY_CAP,
        remaining: 0,
        resetsAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T18:30:00\.000Z$/),
      });
      expect(response.text).toContain('"max":1000.0000');
      expect(response.body.detail).toMatch(/daily amount limit/);
    }
    expect(await balanceOf(db, bob.upiId)).toBe('1000.0000');
    expect(await balanceOf(db, alice.upiId)).toBe('99000.0000');
    // Each refusal counted once. Both in-process instances share prom-client's default registry,
    // so one instance's scrape shows the process's count.
    expect((await refusals(instances[0], 'daily-amount')) - before).toBe(13);
  });

  it('replays a limit-exceeded answer under its key, byte for byte, on either instance', async () => {
    const [alice, bob] = await Promise.all([first().registerUser({ balance: 5000 }), first().registerUser()]);
    const key = newIdempotencyKey();
    const refused = await first().transfer(alice, bob.upiId, 1001, { key });
    expectProblem(refused, 422, 'limit-exceeded');
    const again = await second().transfer(alice, bob.upiId, 1001, { key });
    expect([again.status, again.text]).toEqual([422, refused.text]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('TRANSFER_AMOUNT_MAX: 100000 passes the per-transfer rule, 100000.01 is a 422 on amount', async () => {
    const [alice, bob] = await Promise.all([first().registerUser({ balance: 200000 }), first().registerUser()]);
    const over = await first().transfer(alice, bob.upiId, '100000.01');
    expectProblem(over, 422, 'validation-failed');
    expect(over.body.errors).toEqual({ amount: 'amount must be at most 100000.0000' });
    // The per-transfer rule lets it through; the (smaller) daily cap then refuses it.
    const at = await first().transfer(alice, bob.upiId, 100000);
    expectProblem(at, 422, 'limit-exceeded');
  });

  it('shows the limits to the owner and admins only, with what is used and when it resets', async () => {
    const [alice, bob, eve] = await Promise.all([
      first().registerUser({ balance: 5000 }),
      first().registerUser(),
      first().registerUser(),
    ]);
    expect((await first().transfer(alice, bob.upiId, 350)).status).toBe(201);
    const path = `/api/v1/users/${alice.referenceId}/limits`;
    const own = await second().get(path, alice.token);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      perTransferMax: 100000,
      daily: { amountMax: DAILY_CAP, amountUsed: 350, countMax: 20, countUsed: 1, resetsAt: expect.any(String) },
      newUser: { until: expect.any(String), amountMax: 5000, amountUsed: 350 },
      frozen: false,
    });
    expect(own.text).toContain('"amountUsed":350.0000');
    expect((await first().get(path, admin.token)).body).toEqual(own.body);
    expectProblem(await first().get(path, eve.token), 403);
    expectProblem(await first().get(`/api/v1/users/00000000-0000-4000-8000-000000000000/limits`, admin.token), 404);
  });

  it('an admin overrides a daily limit and goes back to the profile with null; bad input changes nothing', async () => {
    const [alice, bob] = await Promise.all([first().registerUser({ balance: 5000 }), first().registerUser()]);
    const path = `/api/v1/admin/users/${alice.referenceId}/limits`;
    const put = (body: unknown, token = admin.token) => first().request('PUT', path, { token, body });
    const raised = await put({ dailyAmountMax: 1500, dailyCountMax: 2 });
    expect(raised.status).toBe(200);
    expect(raised.body.daily).toMatchObject({ amountMax: 1500, countMax: 2 });
    expect((await second().transfer(alice, bob.upiId, 1200)).status).toBe(201);
    expectProblem(await put({ dailyCountMax: -1 }), 422, 'validation-failed');
    expectProblem(await put({ dailyAmountMax: 'lots' }), 422, 'validation-failed');
    expectProblem(await put({ dailyAmountMax: 1 }, alice.token), 403);
    const back = await put({ dailyAmountMax: null });
    expect(back.body.daily).toMatchObject({ amountMax: DAILY_CAP, countMax: 2 });
    const refused = await first().transfer(alice, bob.upiId, 1);
    expectProblem(refused, 422, 'limit-exceeded');
    expect(refused.body.limit).toMatchObject({ name: 'daily-amount', used: 1200, remaining: 0 });
  });

  it('a frozen account neither sends nor receives; login and reads go on; every action is in the log', async () => {
    const [alice, bob] = await Promise.all([first().registerUser({ balance: 500 }), first().registerUser()]);
    const admin = `/api/v1/admin/users/${alice.referenceId}`;
    const received = await first().transfer(bob, alice.upiId, 2);
    expect(received.status).toBe(201);
    const act = (what: string, body: unknown) => first().post(`${admin}/${what}`, body, { token: adminToken() });
    expectProblem(await act('freeze', {}), 422, 'validation-failed');
    expectProblem(await act('freeze', { reason: 'x'.repeat(256) }), 422, 'validation-failed');
    const frozen = await act('freeze', { reason: 'Court order 117' });
    expect([frozen.status, frozen.body.frozen]).toEqual([200, true]);
    const gauge = (await first().get('/actuator/prometheus')).text.match(/^payments_frozen_accounts (\d+)$/m);
    expect(Number(gauge?.[1])).toBeGreaterThanOrEqual(1);

    const sending = await second().transfer(alice, bob.upiId, 1);
    expectProblem(sending, 422, 'account-frozen');
    expect(sending.body.detail).toMatch(/sender/);
    const receiving = await second().transfer(bob, alice.upiId, 1);
    expectProblem(receiving, 422, 'account-frozen');
    expect(receiving.body.detail).toMatch(/receiver/);
    // Every movement kind: a deposit to it, and a reversal by it of a transfer it received.
    const deposit = await first().post(
      '/api/v1/admin/deposits',
      { upiId: alice.upiId, amount: 5 },
      { token: adminToken(), headers: { 'idempotency-key': newIdempotencyKey() } },
    );
    expectProblem(deposit, 422, 'account-frozen');
    const reversal = await first().post(
      `/api/v1/transactions/${received.body.referenceId}/reversals`,
      {},
      { token: alice.token, headers: { 'idempotency-key': newIdempotencyKey() } },
    );
    expectProblem(reversal, 422, 'account-frozen');
    expect(reversal.body.detail).toMatch(/sender/);
    expect(await balanceOf(db, alice.upiId)).toBe('502.0000');
    const token = await first().login(alice.upiId);
    expect((await first().get(`/api/v1/users/${alice.referenceId}`, token)).status).toBe(200);
    expect((await first().get(`/api/v1/users/${alice.referenceId}/limits`, token)).body.frozen).toBe(true);

    const thawed = await act('unfreeze', { reason: 'Order lifted' });
    expect(thawed.body.frozen).toBe(false);
    expect((await second().transfer(alice, bob.upiId, 1)).status).toBe(201);
    await first().request('PUT', `${admin}/limits`, { token: adminToken(), body: { dailyCountMax: 5 } });
    const granted = await first().post(
      `${admin}/roles`,
      { role: 'ROLE_ADMIN', granted: true },
      { token: adminToken() },
    );
    expect(granted.status).toBe(200);

    const log = await second().get(`${admin}/actions`, adminToken());
    expect(log.status).toBe(200);
    expect(log.body).toEqual([
      {
        action: 'GRANT_ROLE',
        reason: null,
        adminUpiId: ADMIN.toLowerCase(),
        at: expect.any(String),
        details: { role: 'ROLE_ADMIN' },
      },
      {
        action: 'LIMITS',
        reason: null,
        adminUpiId: ADMIN.toLowerCase(),
        at: expect.any(String),
        details: { dailyCountMax: 5 },
      },
      {
        action: 'UNFREEZE',
        reason: 'Order lifted',
        adminUpiId: ADMIN.toLowerCase(),
        at: expect.any(String),
        details: {},
      },
      {
        action: 'FREEZE',
        reason: 'Court order 117',
        adminUpiId: ADMIN.toLowerCase(),
        at: expect.any(String),
        details: {},
      },
    ]);
    expectProblem(await second().get(`${admin}/actions`, bob.token), 403);
  });

  const adminToken = () => admin.token;
});

describe('LIMITS_PROFILE=none (the default): the spec behaviour', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' })));
  afterAll(() => t.close());

  it('applies no daily limit, allows the spec maximum per transfer, and shows limits that do not apply as null', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 3000000 }), t.api.registerUser()]);
    expect((await t.api.transfer(alice, bob.upiId, 1000000)).status).toBe(201);
    const many = await Promise.all(Array.from({ length: 25 }, () => t.api.transfer(alice, bob.upiId, 1)));
    expect(many.every((r) => r.status === 201)).toBe(true);
    expectProblem(await t.api.transfer(alice, bob.upiId, '1000000.01'), 422, 'validation-failed');
    const view = await t.api.get(`/api/v1/users/${alice.referenceId}/limits`, alice.token);
    expect(view.body).toEqual({
      perTransferMax: 1000000,
      daily: { amountMax: null, amountUsed: 0, countMax: null, countUsed: 0, resetsAt: expect.any(String) },
      newUser: null,
      frozen: false,
    });
  });
});
