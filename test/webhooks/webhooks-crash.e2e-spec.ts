import { Webhook } from 'standardwebhooks';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { ApiClient, uniqueUpiId } from '../support/api-client';
import { createScratchDatabase } from '../support/db';
import { TEST_JWT_SECRET } from '../support/jwt';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { waitUntil } from '../support/wait';
import {
  completedTransfer,
  createEndpoint,
  deliveriesOf,
  DEVELOPMENT_SWITCHES,
  WebhookReceiver,
} from '../support/webhook-receiver';

/** The service as a child process, SIGKILLed while an attempt is on the wire. */
describe('webhook delivery across a crash', () => {
  it('delivers after a restart what a SIGKILLed service was sending, and logs failures as JSON without secrets', async () => {
    const scratch = await createScratchDatabase();
    const dataDir = makeTempDir('payments-hooks-crash');
    const adminUpiId = uniqueUpiId('admin');
    const env = {
      ...DEVELOPMENT_SWITCHES,
      DATABASE_URL: scratch.url,
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      ADMIN_UPI_IDS: adminUpiId,
      WEBHOOK_TIMEOUT_MS: '2000', // a lease of 2 × 2 s + 5 s
      WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms',
    };
    const hanging = await new WebhookReceiver().start();
    hanging.answer = () => 'hang';
    const failing = await new WebhookReceiver().start();
    failing.answer = () => ({ status: 500 });
    let service = await ServiceProcess.start(env);
    try {
      let api = new ApiClient(service.baseUrl);
      const admin = await api.registerUser({ upiId: adminUpiId });
      const [alice, bob] = await Promise.all([api.registerUser(), api.registerUser()]);
      const endpoint = await createEndpoint(api, admin.token, { url: hanging.url, events: ['*'] });
      const failingEndpoint = await createEndpoint(api, admin.token, { url: failing.url, events: ['*'] });
      const reference = await completedTransfer(api, alice, bob.upiId);
      await waitUntil(() => hanging.callsFor(reference).length === 1, 'the first attempt on the wire');
      await waitUntil(() => failing.callsFor(reference).length >= 1, 'a failed attempt');
      await waitUntil(() => /Webhook delivery attempt failed/.test(service.recentOutput), 'its log line');
      const output = service.recentOutput;

      await service.stop('SIGKILL');
      hanging.answer = () => ({ status: 204 });
      service = await ServiceProcess.start(env);
      api = new ApiClient(service.baseUrl);
      await waitUntil(() => hanging.callsFor(reference).length === 2, 'the attempt again after the lease', 30_000);
      const adminToken = await api.login(adminUpiId);
      await waitUntil(
        async () => (await deliveriesOf(api, adminToken, endpoint.id))[0]?.status === 'DELIVERED',
        'DELIVERED',
      );
      expect((await deliveriesOf(api, adminToken, endpoint.id))[0]).toMatchObject({ attempts: 2, lastStatusCode: 204 });
      const [first, second] = hanging.callsFor(reference);
      expect(second.eventId).toBe(first.eventId);
      expect(new Webhook(endpoint.secret).verify(second.raw, second.headers as Record<string, string>)).toBeTruthy();

      // One JSON line per failed attempt, with ids and the reason, and nothing secret or private.
      const failure = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === 'Webhook delivery attempt failed; retry scheduled');
      expect(failure).toMatchObject({
        level: 'warn',
        endpointId: failingEndpoint.id,
        eventId: first.eventId,
        statusCode: 500,
        reason: 'status',
        attempt: 1,
      });
      for (const secret of [endpoint.secret, failingEndpoint.secret]) expect(output).not.toContain(secret.slice(6));
      expect(output).not.toContain(failing.url);
      expect(output).not.toContain(first.raw);
    } finally {
      await service.stop('SIGKILL');
      await hanging.stop();
      await failing.stop();
      removeTempDir(dataDir);
      await scratch.drop();
    }
  }, 90_000);

  it('abandons an attempt still running at a graceful stop, unrecorded, and sends it after the restart', async () => {
    const scratch = await createScratchDatabase();
    const dataDir = makeTempDir('payments-hooks-stop');
    const adminUpiId = uniqueUpiId('admin');
    const env = {
      ...DEVELOPMENT_SWITCHES,
      DATABASE_URL: scratch.url,
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      ADMIN_UPI_IDS: adminUpiId,
      // The default 10 s timeout outlasts the stop's 3 s grace, so the shutdown cuts the attempt (lease 25 s).
      WEBHOOK_RETRY_SCHEDULE: '1h', // had the cut attempt counted as a failure, the next would be an hour away
    };
    const hooks = await new WebhookReceiver().start();
    hooks.answer = () => 'hang';
    let service = await ServiceProcess.start(env);
    try {
      let api = new ApiClient(service.baseUrl);
      const admin = await api.registerUser({ upiId: adminUpiId });
      const [alice, bob] = await Promise.all([api.registerUser(), api.registerUser()]);
      const endpoint = await createEndpoint(api, admin.token, { url: hooks.url, events: ['*'] });
      const reference = await completedTransfer(api, alice, bob.upiId);
      await waitUntil(() => hooks.callsFor(reference).length === 1, 'the attempt on the wire');
      const stopped = Date.now();
      expect(await service.stop('SIGTERM')).toBe(0);
      expect(Date.now() - stopped).toBeLessThan(9000);

      hooks.answer = () => ({ status: 200 });
      service = await ServiceProcess.start(env);
      api = new ApiClient(service.baseUrl);
      const token = await api.login(adminUpiId);
      const [pending] = await deliveriesOf(api, token, endpoint.id);
      expect(pending).toMatchObject({ status: 'PENDING', attempts: 1, lastError: null });
      await waitUntil(() => hooks.callsFor(reference).length === 2, 'the attempt after the lease', 60_000);
      await waitUntil(async () => (await deliveriesOf(api, token, endpoint.id))[0]?.status === 'DELIVERED', 'record');
    } finally {
      await service.stop('SIGKILL');
      await hooks.stop();
      removeTempDir(dataDir);
      await scratch.drop();
    }
  }, 120_000);
});
