import type { Client } from 'pg';
import { newIdempotencyKey, randomPhone, uniqueUpiId } from '../support/api-client';
import { balanceOf, connectTestDatabase, idempotencyRow } from '../support/db';
import { FakeUpiProvider } from '../support/fake-upi-provider';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const HALF_OPEN_MS = 3000;

describe('external UPI verification (circuit upiValidation)', () => {
  let provider: FakeUpiProvider;
  let plain: TestApp; // no provider configured: registers receivers the verifying app has never seen
  let db: Client;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    provider = await new FakeUpiProvider().start();
    plain = await startTestApp();
    db = await connectTestDatabase();
  });
  beforeEach(() => {
    provider.mode = 'accept';
    provider.rejected.clear();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await plain.close();
    await provider.stop();
    await db.end();
  });

  /** Each test gets its own service instance, so circuit state never leaks between tests. */
  async function verifyingApp(env: Record<string, string> = {}): Promise<TestApp> {
    const app = await startTestApp({
      UPI_VERIFICATION_URL: `${provider.url}/verify`,
      UPI_VERIFICATION_TIMEOUT_MS: '300',
      UPI_VERIFICATION_CIRCUIT_THRESHOLD: '3',
      UPI_VERIFICATION_CIRCUIT_HALF_OPEN_MS: '600',
      RATE_LIMIT_PER_SECOND: '1000',
      ...env,
    });
    apps.push(app);
    return app;
  }

  const registration = (upiId = uniqueUpiId('verified')) => ({
    name: 'Verified User',
    upiId,
    phoneNumber: randomPhone(),
    balance: 100,
  });

  async function userExists(upiId: string): Promise<boolean> {
    const result = await db.query('SELECT 1 FROM users WHERE lower(upi_id) = lower($1)', [upiId]);
    return result.rowCount === 1;
  }

  it('registers a UPI ID the provider accepts, after asking it', async () => {
    const t = await verifyingApp();
    const body = registration();
    expect((await t.api.post('/api/v1/users', body)).status).toBe(201);
    expect(provider.callsFor(body.upiId)).toBe(1);
    expect(provider.calls.at(-1)).toEqual(
      expect.objectContaining({ method: 'POST', url: '/verify', body: { upiId: body.upiId } }),
    );
  });

  it('answers 422 invalid-upi-id and creates nothing when the provider rejects the ID', async () => {
    const t = await verifyingApp();
    const body = registration();
    provider.rejected.add(body.upiId.toLowerCase());
    const response = await t.api.post('/api/v1/users', body);
    expectProblem(response, 422, 'invalid-upi-id');
    expect(response.body.detail).toContain('account closed');
    expect(await userExists(body.upiId)).toBe(false);
  });

  it.each([
    ['answers 500', 'fail'],
    ['answers garbage', 'garbage'],
  ] as const)('answers 503 naming upiValidation when the provider %s, and creates nothing', async (_case, mode) => {
    const t = await verifyingApp();
    provider.mode = mode;
    const body = registration();
    const response = await t.api.post('/api/v1/users', body);
    expectProblem(response, 503, 'service-unavailable');
    expect(response.body.detail).toContain('upiValidation');
    expect(await userExists(body.upiId)).toBe(false);
  });

  it('answers 503 within the timeout when the provider is too slow', async () => {
    const t = await verifyingApp();
    provider.mode = 'slow';
    provider.slowMs = 10_000;
    const calls = provider.calls.length;
    const started = Date.now();
    const response = await t.api.post('/api/v1/users', registration());
    expectProblem(response, 503, 'service-unavailable');
    expect(response.body.detail).toContain('upiValidation');
    // The 503 came from the timeout, while the provider was still thinking, not from its answer.
    expect(provider.calls.length).toBe(calls + 1);
    expect(provider.calls.at(-1)!.answered).toBeFalsy();
    expect(Date.now() - started).toBeLessThan(provider.slowMs);
  });

  it('opens the circuit after the threshold: no more calls reach the provider, then recovers half-open', async () => {
    // Half-open late enough that the request "while open" is surely made before it, even on a loaded machine.
    const t = await verifyingApp({ UPI_VERIFICATION_CIRCUIT_HALF_OPEN_MS: String(HALF_OPEN_MS) });
    provider.mode = 'fail';
    for (let i = 0; i < 3; i++) expectProblem(await t.api.post('/api/v1/users', registration()), 503);
    const callsWhenOpened = provider.calls.length;

    const whileOpen = await t.api.post('/api/v1/users', registration());
    expectProblem(whileOpen, 503, 'service-unavailable');
    expect(whileOpen.body.detail).toMatch(/upiValidation circuit is open/);
    expect(provider.calls.length).toBe(callsWhenOpened);

    provider.mode = 'accept';
    await new Promise((resolve) => setTimeout(resolve, HALF_OPEN_MS + 100)); // past the half-open delay
    const trial = registration();
    expect((await t.api.post('/api/v1/users', trial)).status).toBe(201);
    expect(provider.callsFor(trial.upiId)).toBe(1);
    expect((await t.api.post('/api/v1/users', registration())).status).toBe(201);
  });

  it('checks the receiver of a transfer: a rejected receiver changes nothing and leaves the key unused', async () => {
    const t = await verifyingApp();
    const sender = await t.api.registerUser({ balance: 100 });
    const receiver = await plain.api.registerUser({ balance: 0 });
    provider.rejected.add(receiver.upiId.toLowerCase());
    const key = newIdempotencyKey();
    expectProblem(await t.api.transfer(sender, receiver.upiId, 10, { key }), 422, 'invalid-upi-id');
    expect([await balanceOf(db, sender.upiId), await balanceOf(db, receiver.upiId)]).toEqual(['100.0000', '0.0000']);
    expect(await idempotencyRow(db, sender.upiId, key)).toBeUndefined();

    provider.rejected.clear();
    expect((await t.api.transfer(sender, receiver.upiId, 10, { key })).status).toBe(201);
  });

  it('answers 503 for a transfer while the provider fails, writes nothing, and then succeeds with the same key', async () => {
    const t = await verifyingApp();
    const sender = await t.api.registerUser({ balance: 100 });
    const receiver = await plain.api.registerUser({ balance: 0 });
    provider.mode = 'fail';
    const key = newIdempotencyKey();
    const refused = await t.api.transfer(sender, receiver.upiId, 10, { key });
    expectProblem(refused, 503, 'service-unavailable');
    expect(refused.body.detail).toContain('upiValidation');
    expect(await balanceOf(db, sender.upiId)).toBe('100.0000');
    expect(await idempotencyRow(db, sender.upiId, key)).toBeUndefined();

    provider.mode = 'accept';
    expect((await t.api.transfer(sender, receiver.upiId, 10, { key })).status).toBe(201);
  });

  it('still replays a completed transfer while the provider is down', async () => {
    const t = await verifyingApp({ UPI_VERIFICATION_CACHE_TTL_MS: '0' });
    const sender = await t.api.registerUser({ balance: 100 });
    const receiver = await plain.api.registerUser({ balance: 0 });
    const key = newIdempotencyKey();
    const first = await t.api.transfer(sender, receiver.upiId, 10, { key });
    expect(first.status).toBe(201);
    provider.mode = 'fail';
    const replay = await t.api.transfer(sender, receiver.upiId, 10, { key });
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await balanceOf(db, sender.upiId)).toBe('90.0000');
  });

  it('caches accepted receivers: repeated transfers ask the provider once', async () => {
    const t = await verifyingApp();
    const sender = await t.api.registerUser({ balance: 100 });
    const receiver = await plain.api.registerUser({ balance: 0 });
    for (let i = 0; i < 3; i++) expect((await t.api.transfer(sender, receiver.upiId, 1)).status).toBe(201);
    expect(provider.callsFor(receiver.upiId)).toBe(1);
  });
});
