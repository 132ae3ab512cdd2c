import { Client } from 'pg';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { MAX_IN_FLIGHT, MAX_IN_FLIGHT_PER_ENDPOINT } from '../../src/webhooks/delivery-worker';
import { ApiClient, type RegisteredUser } from '../support/api-client';
import { TEST_JWT_SECRET } from '../support/jwt';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { waitUntil } from '../support/wait';
import {
  completedTransfer,
  createEndpoint,
  deliveriesOf,
  DEVELOPMENT_SWITCHES,
  startWebhookHarness,
  type WebhookHarness,
  WebhookReceiver,
} from '../support/webhook-receiver';

describe('webhook isolation', () => {
  let h: WebhookHarness;
  let db: Client;
  let alice: RegisteredUser;
  let bob: RegisteredUser;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => receivers[receivers.push(await new WebhookReceiver().start()) - 1];
  beforeAll(async () => {
    h = await startWebhookHarness({
      ...DEVELOPMENT_SWITCHES,
      WEBHOOK_TIMEOUT_MS: '15000',
      RATE_LIMIT_PER_SECOND: '1000',
    });
    db = new Client({ connectionString: h.databaseUrl });
    await db.connect();
    [alice, bob] = await Promise.all([h.t.api.registerUser({ balance: 10_000 }), h.t.api.registerUser()]);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await db.end();
    await h.close();
  });
  const api = () => h.t.api;

  it('a slow endpoint (10 s) delays neither another endpoint nor the outbox relay', async () => {
    const slow = await receiver();
    slow.answer = () => ({ status: 200, delayMs: 10_000 });
    const fast = await receiver();
    const slowEndpoint = await createEndpoint(api(), h.admin.token, { url: slow.url, events: ['*'] });
    await createEndpoint(api(), h.admin.token, { url: fast.url, events: ['*'] });
    const references: string[] = [];
    // More than the process's whole concurrency: without per-endpoint lanes the slow one would take every slot.
    for (let i = 0; i < MAX_IN_FLIGHT + MAX_IN_FLIGHT_PER_ENDPOINT; i++)
      references.push(await completedTransfer(api(), alice, bob.upiId));

    await waitUntil(() => references.every((ref) => fast.callsFor(ref).length === 1), 'every fast delivery');
    const { rows } = await db.query<{ unpublished: number }>(
      `SELECT count(*)::int AS unpublished FROM outbox_messages()
       WHERE payload::jsonb->>'transactionReferenceId' = ANY($1) AND NOT outbox_published(xid, id)`,
      [references],
    );
    // All of that happened while the slow endpoint still held every one of its slots, unanswered.
    expect(slow.calls.filter((call) => call.status !== undefined)).toEqual([]);
    expect(rows[0].unpublished).toBe(0);
    expect(slow.calls.length).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_ENDPOINT);
    const pending = await deliveriesOf(api(), h.admin.token, slowEndpoint.id, '?status=PENDING');
    expect(pending).toHaveLength(references.length);
    await api().request('DELETE', `/api/v1/admin/webhooks/${slowEndpoint.id}`, { token: h.admin.token });
  });

  it('keeps delivering after every database connection it had was cut', async () => {
    const hooks = await receiver();
    await createEndpoint(api(), h.admin.token, { url: hooks.url, events: ['TransferCompleted'] });
    await db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    let reference: string | undefined;
    await waitUntil(async () => {
      reference = await completedTransfer(api(), alice, bob.upiId).catch(() => undefined); // 503 while reconnecting
      return reference !== undefined;
    }, 'a transfer once the pools reconnect');
    await waitUntil(() => hooks.callsFor(reference!).length === 1, 'its delivery');
  });

  it('several instances share the deliveries and never send one attempt twice', async () => {
    const dataDirs = [makeTempDir('payments-hooks'), makeTempDir('payments-hooks')];
    const instances = await Promise.all(
      dataDirs.map((dir) =>
        ServiceProcess.start({
          ...DEVELOPMENT_SWITCHES,
          DATABASE_URL: h.databaseUrl,
          DATA_DIR: dir,
          JWT_SECRET: TEST_JWT_SECRET,
          RATE_LIMIT_PER_SECOND: '1000',
        }),
      ),
    );
    try {
      const hooks = await receiver();
      hooks.answer = () => ({ status: 204, delayMs: 300 }); // attempts overlap, so a double send would show
      await createEndpoint(api(), h.admin.token, { url: hooks.url, events: ['TransferCompleted'] });
      // Transfers go to every instance in turn: each nudges its own worker, so none of them is the
      // only one awake while the others wait for their next tick (the endpoint's lanes are shared).
      const clients = [api(), ...instances.map((i) => new ApiClient(i.baseUrl))];
      const references: string[] = [];
      for (let i = 0; i < 60; i++)
        references.push(await completedTransfer(clients[i % clients.length], alice, bob.upiId));
      await waitUntil(() => references.every((ref) => hooks.callsFor(ref).length >= 1), 'every delivery', 60_000);

      expect(references.filter((ref) => hooks.callsFor(ref).length !== 1)).toEqual([]);
      expect(hooks.maxConcurrentPerEvent).toBe(1);
      // Each process counts its own attempts: more than one of them delivered some.
      const deliveredBy = await Promise.all(
        clients.map(async (client) => {
          const text = (await client.get('/actuator/prometheus')).text;
          return Number(/^payments_webhook_attempts_total\{outcome="delivered",reason="none"\} (\d+)/m.exec(text)?.[1]);
        }),
      );
      expect(deliveredBy.filter((count) => count > 0).length).toBeGreaterThanOrEqual(2);
    } finally {
      await Promise.all(instances.map((i) => i.stop()));
      dataDirs.forEach(removeTempDir);
    }
  }, 120_000);
});
