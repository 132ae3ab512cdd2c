import type { RegisteredUser } from '../support/api-client';
import { FakeUpiProvider } from '../support/fake-upi-provider';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const LIMIT = 30;

/** GET /api/v1/payees/{upiId}: the name a payer sees before confirming (NPCI OC-101A). */
describe('the payee name before paying', () => {
  let provider: FakeUpiProvider;
  let t: TestApp;
  let payer: RegisteredUser;

  beforeAll(async () => {
    provider = await new FakeUpiProvider().start();
    t = await startTestApp({
      UPI_VERIFICATION_URL: `${provider.url}/verify`,
      UPI_VERIFICATION_TIMEOUT_MS: '300',
      UPI_VERIFICATION_CIRCUIT_THRESHOLD: '3',
      UPI_VERIFICATION_CIRCUIT_HALF_OPEN_MS: '60000',
    });
    payer = await t.api.registerUser({ name: 'Payer' });
  });
  beforeEach(() => {
    provider.mode = 'accept';
    provider.rejected.clear();
    provider.names.clear();
  });
  afterAll(async () => {
    await t.close();
    await provider.stop();
  });

  const lookUp = (upiId: string, token = payer.token, app = t) =>
    app.api.get(`/api/v1/payees/${encodeURIComponent(upiId)}`, token);

  it("answers the provider's name when it gives one, asking it about the payee", async () => {
    const payee = await t.api.registerUser({ name: 'Bob Registered' });
    provider.names.set(payee.upiId.toLowerCase(), 'Bob Kumar');
    const callsBefore = provider.callsFor(payee.upiId);
    const response = await lookUp(payee.upiId.toUpperCase());
    expect({ status: response.status, body: response.body }).toEqual({
      status: 200,
      body: { upiId: payee.upiId, name: 'Bob Kumar' },
    });
    expect(provider.callsFor(payee.upiId)).toBe(callsBefore + 1);
  });

  it.each([
    ['answers no name', () => undefined],
    ['answers a blank name', (upiId: string) => provider.names.set(upiId, '   ')],
    ['rejects the ID', (upiId: string) => provider.rejected.add(upiId)],
  ])('answers the registered name when the provider %s', async (_, arrange) => {
    const payee = await t.api.registerUser({ name: 'Carol Registered' });
    arrange(payee.upiId.toLowerCase());
    const response = await lookUp(payee.upiId);
    expect({ status: response.status, body: response.body }).toEqual({
      status: 200,
      body: { upiId: payee.upiId, name: 'Carol Registered' },
    });
  });

  it('answers 404 user-not-found for an unknown UPI ID without asking the provider', async () => {
    const unknown = `nobody.${Date.now()}@okbank`;
    const response = await lookUp(unknown);
    expectProblem(response, 404, 'user-not-found');
    expect(provider.callsFor(unknown)).toBe(0);
  });

  it('answers 422 for a malformed UPI ID and 401 without a token', async () => {
    const malformed = await lookUp('not-a-upi-id');
    expectProblem(malformed, 422, 'validation-failed');
    expect(malformed.body.errors).toEqual({ upiId: expect.any(String) });
    expectProblem(await t.api.get(`/api/v1/payees/${payer.upiId}`), 401, 'unauthorized');
    expectProblem(await lookUp(payer.upiId, 'not.a.token'), 401, 'unauthorized');
  });

  it('allows 30 look-ups per user and minute: the 31st is 429 with Retry-After, another user is unaffected', async () => {
    const [walker, other, payee] = await Promise.all([
      t.api.registerUser(),
      t.api.registerUser(),
      t.api.registerUser({ name: 'Dan' }),
    ]);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i += 1) statuses.push((await lookUp(payee.upiId, walker.token)).status);
    expect(statuses).toEqual(Array(LIMIT).fill(200));
    const refused = await lookUp(payee.upiId, walker.token);
    expectProblem(refused, 429, 'rate-limit-exceeded');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // An unknown ID counts too, or a walker could probe at will between hits.
    expectProblem(await lookUp(`nobody.${Date.now()}@okbank`, walker.token), 429, 'rate-limit-exceeded');
    const unaffected = await lookUp(payee.upiId, other.token);
    expect({ status: unaffected.status, name: unaffected.body.name }).toEqual({ status: 200, name: 'Dan' });
  });

  it('answers the registered name while the provider fails, is slow or answers garbage, and once its circuit is open', async () => {
    // An instance of its own: the circuit this test opens stays open there.
    const down = await startTestApp({
      UPI_VERIFICATION_URL: `${provider.url}/verify`,
      UPI_VERIFICATION_TIMEOUT_MS: '300',
      UPI_VERIFICATION_CIRCUIT_THRESHOLD: '3',
      UPI_VERIFICATION_CIRCUIT_HALF_OPEN_MS: '60000',
    });
    try {
      const payee = await down.api.registerUser({ name: 'Erin Registered' });
      provider.names.set(payee.upiId.toLowerCase(), 'Erin From Bank');
      provider.slowMs = 1000;
      const callsBefore = provider.callsFor(payee.upiId);
      // Three failures in a row open upiValidation; then even a healthy provider is not asked.
      for (const mode of ['fail', 'slow', 'garbage', 'accept'] as const) {
        provider.mode = mode;
        const response = await lookUp(payee.upiId, payer.token, down);
        expect({ mode, status: response.status, body: response.body }).toEqual({
          mode,
          status: 200,
          body: { upiId: payee.upiId, name: 'Erin Registered' },
        });
      }
      expect(provider.callsFor(payee.upiId)).toBe(callsBefore + 3);
    } finally {
      await down.close();
    }
  });
});

describe('payee look-ups across instances (RATE_LIMIT_STORE=postgres)', () => {
  let instances: TestApp[];
  beforeAll(async () => {
    instances = await Promise.all([
      startTestApp({ RATE_LIMIT_STORE: 'postgres' }),
      startTestApp({ RATE_LIMIT_STORE: 'postgres' }),
    ]);
  });
  afterAll(() => Promise.all(instances.map((app) => app.close())));

  it('counts one user’s look-ups on every instance together', async () => {
    const [walker, payee] = await Promise.all([instances[0].api.registerUser(), instances[1].api.registerUser()]);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i += 1) {
      const app = instances[i % 2];
      statuses.push((await app.api.get(`/api/v1/payees/${payee.upiId}`, walker.token)).status);
    }
    expect(statuses).toEqual(Array(LIMIT).fill(200));
    for (const app of instances) {
      const refused = await app.api.get(`/api/v1/payees/${payee.upiId}`, walker.token);
      expectProblem(refused, 429, 'rate-limit-exceeded');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });
});
