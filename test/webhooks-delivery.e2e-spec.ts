import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { findFreePort } from '../scripts/lib/service-process';
import { RetentionJob } from '../src/partitions/retention.job';
import { WebhookMaintenanceJob } from '../src/webhooks/webhook-maintenance.job';
import { newIdempotencyKey, type RegisteredUser } from './support/api-client';
import { parseExposition } from './support/promql';
import { waitUntil } from './support/wait';
import {
  completedTransfer,
  createEndpoint,
  deliveriesOf,
  DEVELOPMENT_SWITCHES,
  startWebhookHarness,
  type WebhookHarness,
  WebhookReceiver,
} from './support/webhook-receiver';

describe('webhook delivery', () => {
  let h: WebhookHarness;
  let db: Client;
  let alice: RegisteredUser;
  let bob: RegisteredUser;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => receivers[receivers.push(await new WebhookReceiver().start()) - 1];
  beforeAll(async () => {
    h = await startWebhookHarness({
      ...DEVELOPMENT_SWITCHES,
      WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    db = new Client({ connectionString: h.databaseUrl });
    await db.connect();
    [alice, bob] = await Promise.all([h.t.api.registerUser(), h.t.api.registerUser()]);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await db.end();
    await h.close();
  });
  const api = () => h.t.api;
  const token = () => h.admin.token;

  it('POSTs the outbox event, signed as Standard Webhooks defines: the standardwebhooks library verifies it', async () => {
    const hooks = await receiver();
    const endpoint = await createEndpoint(api(), token(), { url: hooks.url, events: ['*'] });
    const started = Math.floor(Date.now() / 1000);
    const reference = await completedTransfer(api(), alice, bob.upiId, 2.5);
    await waitUntil(() => hooks.callsFor(reference).length === 1, 'the delivery');
    const [call] = hooks.callsFor(reference);

    const { rows } = await db.query('SELECT event_id, payload FROM outbox_events WHERE event_id = $1', [call.eventId]);
    expect(call.raw).toBe(rows[0].payload); // the very JSON Kafka carries
    expect(call.headers['content-type']).toBe('application/json');
    expect(Number(call.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(started - 1);
    expect(Number(call.headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    const event = new Webhook(endpoint.secret).verify(call.raw, call.headers as Record<string, string>);
    expect(event).toMatchObject({
      eventId: call.eventId,
      eventType: 'TransferCompleted',
      transactionReferenceId: reference,
      senderUpiId: alice.upiId,
      receiverUpiId: bob.upiId,
      amount: '2.5000',
    });
    const otherSecret = (await createEndpoint(api(), token(), { url: hooks.url, events: ['TransferReversed'] })).secret;
    expect(() => new Webhook(otherSecret).verify(call.raw, call.headers as Record<string, string>)).toThrow();
    const tampered = call.raw.replace('2.5000', '250.0000');
    expect(() => new Webhook(endpoint.secret).verify(tampered, call.headers as Record<string, string>)).toThrow();

    await waitUntil(async () => (await deliveriesOf(api(), token(), endpoint.id))[0]?.status === 'DELIVERED', 'record');
    expect(await deliveriesOf(api(), token(), endpoint.id)).toEqual([
      expect.objectContaining({
        eventId: call.eventId,
        eventType: 'TransferCompleted',
        status: 'DELIVERED',
        attempts: 1,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
      }),
    ]);
  });

  it('sends each endpoint only the event types it subscribed to', async () => {
    const hooks = await receiver();
    const [reversals, completions, everything] = await Promise.all(
      [['TransferReversed'], ['TransferCompleted'], ['*']].map((events) =>
        createEndpoint(api(), token(), { url: hooks.url, events }),
      ),
    );
    const reference = await completedTransfer(api(), alice, bob.upiId, 3);
    const reversal = await api().post(
      `/api/v1/transactions/${reference}/reversals`,
      {},
      {
        token: bob.token,
        headers: { 'idempotency-key': newIdempotencyKey() },
      },
    );
    expect(reversal.status).toBe(201);
    // Deliveries are written in the transfer's own transaction: they are all there already.
    const typesOf = async (id: string) => (await deliveriesOf(api(), token(), id)).map((d) => d.eventType).sort();
    expect(await typesOf(reversals.id)).toEqual(['TransferReversed']);
    expect(await typesOf(completions.id)).toEqual(['TransferCompleted']);
    expect(await typesOf(everything.id)).toEqual(['TransferCompleted', 'TransferReversed']);
    // Both events name the transfer: as transactionReferenceId, and as originalTransactionReferenceId.
    await waitUntil(() => hooks.calls.filter((c) => c.raw.includes(reference)).length === 4, 'four deliveries');
  });

  it.each([
    ['HTTP 500', { status: 500 }, 500, 'HTTP 500', 3],
    ['a timeout', 'hang' as const, null, 'timed out after 1000 ms', 3],
  ])(
    'retries on %s on the schedule, records each attempt, then FAILED; an admin retry delivers',
    async (_c, answer, code, error, calls) => {
      const hooks = await receiver();
      hooks.answer = () => answer;
      const endpoint = await createEndpoint(api(), token(), { url: hooks.url, events: ['TransferCompleted'] });
      const reference = await completedTransfer(api(), alice, bob.upiId);
      await waitUntil(async () => (await deliveriesOf(api(), token(), endpoint.id))[0]?.status === 'FAILED', 'FAILED');
      const [failed] = await deliveriesOf(api(), token(), endpoint.id);
      expect(failed).toMatchObject({ attempts: 3, lastStatusCode: code, lastError: error, nextAttemptAt: null });
      const times = hooks.callsFor(reference).map((call) => call.receivedAt);
      expect(times).toHaveLength(calls);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(240); // 300 ms -20 %
      expect(new Set(hooks.callsFor(reference).map((call) => call.eventId)).size).toBe(1);

      // A whole schedule failed with nothing delivered: the endpoint is disabled and gets no new events.
      expect((await api().get(`/api/v1/admin/webhooks/${endpoint.id}`, token())).body.status).toBe('DISABLED');
      await completedTransfer(api(), alice, bob.upiId);
      expect(await deliveriesOf(api(), token(), endpoint.id)).toHaveLength(1);

      hooks.answer = () => ({ status: 200 });
      const retry = await api().post(`/api/v1/admin/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`, undefined, {
        token: token(),
      });
      expect(retry.status).toBe(202);
      await waitUntil(
        async () => (await deliveriesOf(api(), token(), endpoint.id))[0]?.status === 'DELIVERED',
        'retry',
      );
      expect((await deliveriesOf(api(), token(), endpoint.id))[0]).toMatchObject({ attempts: 4, lastStatusCode: 200 });
      expect(hooks.callsFor(reference)).toHaveLength(calls + 1);
      expect((await api().get(`/api/v1/admin/webhooks/${endpoint.id}`, token())).body.status).toBe('ENABLED');
      const again = await api().post(`/api/v1/admin/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`, undefined, {
        token: token(),
      });
      expect(again.status).toBe(202); // a delivered one may be sent again too
    },
  );

  it('retries on connection refused, recording each attempt', async () => {
    const port = await findFreePort(); // nothing listens there
    const endpoint = await createEndpoint(api(), token(), { url: `http://127.0.0.1:${port}/hooks`, events: ['*'] });
    await completedTransfer(api(), alice, bob.upiId);
    await waitUntil(async () => (await deliveriesOf(api(), token(), endpoint.id))[0]?.status === 'FAILED', 'FAILED');
    expect((await deliveriesOf(api(), token(), endpoint.id))[0]).toMatchObject({
      attempts: 3,
      lastStatusCode: null,
      lastError: 'ECONNREFUSED',
    });
    const samples = parseExposition((await api().get('/actuator/prometheus')).text);
    for (const reason of ['status', 'timeout', 'network']) {
      expect(samples).toContainEqual({
        name: 'payments_webhook_attempts_total',
        labels: { outcome: 'failed', reason },
      });
    }
  });

  it('signs with the new secret after a rotation; the old one no longer verifies', async () => {
    const hooks = await receiver();
    const endpoint = await createEndpoint(api(), token(), { url: hooks.url, events: ['TransferCompleted'] });
    const rotated = await api().post(`/api/v1/admin/webhooks/${endpoint.id}/rotate-secret`, undefined, {
      token: token(),
    });
    const reference = await completedTransfer(api(), alice, bob.upiId);
    await waitUntil(() => hooks.callsFor(reference).length === 1, 'the delivery');
    const [call] = hooks.callsFor(reference);
    const headers = call.headers as Record<string, string>;
    expect(new Webhook(rotated.body.secret).verify(call.raw, headers)).toMatchObject({
      transactionReferenceId: reference,
    });
    expect(() => new Webhook(endpoint.secret).verify(call.raw, headers)).toThrow();

    // Deleting the endpoint deletes its deliveries with it.
    const { rows } = await db.query('SELECT id FROM webhook_endpoints WHERE reference_id = $1', [endpoint.id]);
    const remaining = () => db.query('SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1', [rows[0].id]);
    expect((await remaining()).rows).toHaveLength(1);
    expect((await api().request('DELETE', `/api/v1/admin/webhooks/${endpoint.id}`, { token: token() })).status).toBe(
      204,
    );
    expect((await remaining()).rows).toEqual([]);
  });

  it('purges finished deliveries after the retention period, and keeps the rest', async () => {
    const hooks = await receiver();
    const endpoint = await createEndpoint(api(), token(), { url: hooks.url, events: ['TransferCompleted'] });
    await completedTransfer(api(), alice, bob.upiId);
    await completedTransfer(api(), alice, bob.upiId);
    await waitUntil(
      async () => (await deliveriesOf(api(), token(), endpoint.id, '?status=DELIVERED')).length === 2,
      'two deliveries',
    );
    const [newer, older] = await deliveriesOf(api(), token(), endpoint.id);
    // Into the daily partition of 32 days ago: retention drops that partition whole.
    await db.query(`SELECT ensure_partitions('webhook_deliveries', now() - interval '32 days', now())`);
    await db.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '32 days', finished_at = now() - interval '31 days'
       WHERE reference_id = $1`,
      [older.id],
    );
    // And a delivery a fan-out wrote for an endpoint deleted meanwhile.
    await db.query(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload)
       VALUES (-1, gen_random_uuid(), 'TransferCompleted', '{}')`,
    );
    expect(await h.t.app.get(RetentionJob).run()).toBeGreaterThanOrEqual(1);
    expect(await h.t.app.get(WebhookMaintenanceJob).purge()).toBe(1);
    expect((await deliveriesOf(api(), token(), endpoint.id)).map((d) => d.id)).toEqual([newer.id]);
    expect((await db.query('SELECT 1 FROM webhook_deliveries WHERE endpoint_id = -1')).rows).toEqual([]);
  });
});
