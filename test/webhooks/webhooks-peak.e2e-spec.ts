import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { readWebhookMetrics } from '../../scripts/lib/webhook-metrics';
import { MoneyPathLoad } from '../../src/movements/money-path-load';
import type { RegisteredUser } from '../support/api-client';
import { waitUntil } from '../support/wait';
import {
  completedTransfer,
  createEndpoint,
  DEVELOPMENT_SWITCHES,
  startWebhookHarness,
  type WebhookHarness,
  WebhookReceiver,
} from '../support/webhook-receiver';

const PEAK_PER_SECOND = 4;
const EVENTS = 30;

/** At the money path's peaks, deliveries give way (WEBHOOK_PEAK_DELIVERIES_PER_SECOND), then catch up. */
describe('webhook deliveries at the money path peak', () => {
  let h: WebhookHarness;
  let hooks: WebhookReceiver;
  let alice: RegisteredUser;
  let bob: RegisteredUser;
  beforeAll(async () => {
    h = await startWebhookHarness({
      ...DEVELOPMENT_SWITCHES,
      WEBHOOK_PEAK_DELIVERIES_PER_SECOND: String(PEAK_PER_SECOND),
      RATE_LIMIT_PER_SECOND: '1000',
    });
    hooks = await new WebhookReceiver().start();
    [alice, bob] = await Promise.all([h.t.api.registerUser({ balance: 1000 }), h.t.api.registerUser()]);
  });
  afterAll(async () => {
    await hooks.stop();
    await h.close();
  });

  it('starts at most the peak rate while transfers come in batches, and every delivery once the peak is over', async () => {
    await createEndpoint(h.t.api, h.admin.token, { url: hooks.url, events: ['*'] });
    const load = h.t.app.get(MoneyPathLoad);
    // What the batcher reports when transfers arrive faster than one call at a time.
    load.sawBatch(2, 0);
    const peak = setInterval(() => load.sawBatch(2, 0), 100);
    const started = Date.now();
    try {
      for (let i = 0; i < EVENTS; i++) await completedTransfer(h.t.api, alice, bob.upiId, 1);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const peakMs = Date.now() - started;
      // A slower machine only delivers fewer: the bound holds however long the peak took.
      const allowed = Math.ceil((peakMs / 1000) * PEAK_PER_SECOND) + 2;
      expect(allowed).toBeLessThan(EVENTS);
      expect(hooks.calls.length).toBeLessThanOrEqual(allowed);
    } finally {
      clearInterval(peak);
    }
    await waitUntil(() => new Set(hooks.calls.map((call) => call.eventId)).size === EVENTS, 'every delivery');
    expect(hooks.calls).toHaveLength(EVENTS);
  });
});

const FLOOR_PER_SECOND = 15;
const TARGET_TRANSFERS_PER_SECOND = 60;
const LOAD_SECONDS = 20;

/**
 * Transfers that keep arriving faster than WEBHOOK_PEAK_DELIVERIES_PER_SECOND, with the money path
 * busy throughout: the budget follows the arrival rate, so the backlog stops growing and drains.
 * Held to the floor instead, it would end with (arrivals - floor) x duration deliveries waiting.
 * What matters is arrivals against the floor, so both are scaled down (up to 60 transfers/s against
 * a floor of 15) for a loaded 2-core machine, where the test, the service and the receiver share a process.
 */
describe('webhook deliveries under a sustained rate above the peak floor', () => {
  let h: WebhookHarness;
  let hooks: WebhookReceiver;
  let db: Client;
  beforeAll(async () => {
    h = await startWebhookHarness({
      ...DEVELOPMENT_SWITCHES,
      WEBHOOK_PEAK_DELIVERIES_PER_SECOND: String(FLOOR_PER_SECOND),
      RATE_LIMIT_PER_SECOND: '1000',
    });
    hooks = await new WebhookReceiver().start();
    db = new Client({ connectionString: h.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await hooks.stop();
    await h.close();
  });

  const backlog = async () =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'PENDING'`))
      .rows[0].n;
  const written = async () =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries`)).rows[0].n;
  const oldestPendingAge = async () => {
    const text = (await h.t.api.get('/actuator/prometheus')).text;
    return readWebhookMetrics(text).oldestPendingS;
  };

  it('keeps pace: the backlog stops growing and stays bounded, and every delivery goes out once', async () => {
    const users = await Promise.all(Array.from({ length: 16 }, () => h.t.api.registerUser({ balance: 100_000 })));
    await createEndpoint(h.t.api, h.admin.token, { url: hooks.url, events: ['*'] });
    const load = h.t.app.get(MoneyPathLoad);
    load.sawBatch(2, 0);
    const peak = setInterval(() => load.sawBatch(2, 0), 100);
    const sent = new Set<Promise<unknown>>();
    let transfers = 0;
    const send = () => {
      if (sent.size >= 64) return; // the service is slower than the target: send what it takes
      const sender = users[transfers % 8];
      const request = h.t.api.transfer(sender, users[8 + (transfers++ % 8)].upiId, 1).catch(() => undefined);
      sent.add(request);
      void request.finally(() => sent.delete(request));
    };
    const pacer = setInterval(() => {
      for (let i = 0; i < TARGET_TRANSFERS_PER_SECOND / 20; i++) send();
    }, 50);
    const backlogs: number[] = [];
    const started = Date.now();
    try {
      for (let second = 1; second <= LOAD_SECONDS; second++) {
        await sleep(started + second * 1000 - Date.now());
        backlogs.push(await backlog());
      }
      clearInterval(pacer);
      await Promise.allSettled([...sent]);
      const arrivalsPerSecond = (await written()) / LOAD_SECONDS;
      // The load really was above the floor, or this proves nothing.
      expect(arrivalsPerSecond).toBeGreaterThan(1.5 * FLOOR_PER_SECOND);
      const heldToFloor = (arrivalsPerSecond - FLOOR_PER_SECOND) * LOAD_SECONDS;
      const [middle, end] = [backlogs[LOAD_SECONDS / 2 - 1], backlogs[LOAD_SECONDS - 1]];
      // Not growing over the second half, and far below what the floor alone would have left.
      expect([end <= middle, backlogs]).toEqual([true, backlogs]);
      expect(end).toBeLessThan(heldToFloor / 3);
      await sleep(1100); // the gauge is refreshed every second
      expect(await oldestPendingAge()).toBeLessThan(6);
    } finally {
      clearInterval(pacer);
      clearInterval(peak);
    }
    await waitUntil(async () => (await backlog()) === 0, 'every delivery sent', 60_000);
    const eventIds = hooks.calls.map((call) => call.eventId);
    expect([eventIds.length, new Set(eventIds).size]).toEqual([await written(), await written()]);
  }, 120_000);
});
