import { setTimeout as sleep } from 'node:timers/promises';
import { randomPhone, uniqueUpiId } from '../support/api-client';
import { FakeUpiProvider } from '../support/fake-upi-provider';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const HALF_OPEN_MS = 3000;

/**
 * An open essential circuit takes the instance out of rotation, but once its half-open delay
 * has passed readiness must not wait for a call that an unready instance never receives.
 */
describe('readiness after an open upiValidation circuit', () => {
  let provider: FakeUpiProvider;
  let t: TestApp;
  beforeAll(async () => {
    provider = await new FakeUpiProvider().start();
    t = await startTestApp({
      UPI_VERIFICATION_URL: `${provider.url}/verify`,
      UPI_VERIFICATION_TIMEOUT_MS: '2000',
      UPI_VERIFICATION_CIRCUIT_THRESHOLD: '2',
      UPI_VERIFICATION_CIRCUIT_HALF_OPEN_MS: String(HALF_OPEN_MS),
    });
  });
  afterAll(async () => {
    await t.close();
    await provider.stop();
  });

  const register = () =>
    t.api.post('/api/v1/users', { name: 'R', upiId: uniqueUpiId('ready'), phoneNumber: randomPhone(), balance: 1 });

  it('is DOWN while the circuit is open, and UP again within the half-open delay plus 2 s with no traffic', async () => {
    provider.mode = 'fail';
    for (let i = 0; i < 2; i++) expectProblem(await register(), 503, 'service-unavailable');
    const openedBy = Date.now();
    expect((await t.api.get('/actuator/health/readiness')).status).toBe(503);

    // No calls at all from here on: only the probe.
    const callsBefore = provider.calls.length;
    let readyAt: number | undefined;
    while (Date.now() - openedBy < HALF_OPEN_MS + 2000) {
      const probe = await t.api.get('/actuator/health/readiness');
      if (probe.status === 200) {
        readyAt = Date.now();
        break;
      }
      await sleep(100);
    }
    expect(readyAt).toBeDefined();
    expect(readyAt! - openedBy).toBeGreaterThanOrEqual(HALF_OPEN_MS - 100);
    expect(provider.calls.length).toBe(callsBefore);

    // The first real call is the trial: a healthy provider closes the circuit.
    provider.mode = 'accept';
    expect((await register()).status).toBe(201);
    expect((await t.api.get('/actuator/health/readiness')).status).toBe(200);
  }, 30_000);
});
