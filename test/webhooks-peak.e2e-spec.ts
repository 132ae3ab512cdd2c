import { MoneyPathLoad } from '../src/movements/money-path-load';
import type { RegisteredUser } from './support/api-client';
import { waitUntil } from './support/wait';
import {
  completedTransfer,
  createEndpoint,
  DEVELOPMENT_SWITCHES,
  startWebhookHarness,
  type WebhookHarness,
  WebhookReceiver,
} from './support/webhook-receiver';

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
