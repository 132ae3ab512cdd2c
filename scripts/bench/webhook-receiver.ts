import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { round } from './load';

/** What `--webhook` reports: every event the run produced should have reached the receiver once. */
export interface WebhookBenchResult {
  expected: number;
  /** Distinct webhook-id values received. */
  received: number;
  /** Calls beyond the first for an id (at-least-once redeliveries). */
  duplicates: number;
  /** How long after the load ended the last expected event arrived (or the wait gave up). */
  drainMs: number;
}

export type WebhookBench = Awaited<ReturnType<typeof startWebhookBench>>;

/** A load phase's webhooks (issue 38: 11): the oldest pending delivery, sampled each second; deliveries per second. */
export type WebhookBacklog = Record<'maxOldestPendingS' | 'endOldestPendingS' | 'deliveredPerSecond', number>;

/** From /actuator/prometheus (public): the oldest pending delivery over all endpoints and the deliveries so far. */
export function readWebhookMetrics(text: string): { oldestPendingS: number; delivered: number } {
  const values = (pattern: RegExp) => [...text.matchAll(pattern)].map((m) => Number(m[1]));
  const ages = values(/^payments_webhook_oldest_pending_age_seconds(?:\{[^}]*\})? (\S+)$/gm);
  const delivered = values(/^payments_webhook_attempts_total\{[^}]*outcome="delivered"[^}]*\} (\S+)$/gm);
  return { oldestPendingS: Math.max(0, ...ages), delivered: delivered.reduce((sum, n) => sum + n, 0) };
}

/** Samples the service's webhook metrics once a second from now; the function returned stops and sums up. */
export async function sampleWebhookBacklog(baseUrl: string) {
  const scrape = async () => readWebhookMetrics(await (await fetch(`${baseUrl}/actuator/prometheus`)).text());
  const first = await scrape();
  const ages: number[] = [];
  const sample = async () => ages.push((await scrape()).oldestPendingS);
  const timer = setInterval(() => void sample().catch(() => 0), 1000);
  return async (elapsedS: number): Promise<WebhookBacklog> => {
    clearInterval(timer);
    const last = await scrape();
    const deliveredPerSecond = round((last.delivered - first.delivered) / elapsedS);
    const maxOldestPendingS = round(Math.max(last.oldestPendingS, ...ages));
    return { maxOldestPendingS, endOldestPendingS: round(last.oldestPendingS), deliveredPerSecond };
  };
}

const ADMIN_UPI_ID = 'bench.webhook.admin@okbank';

/**
 * A receiver on 127.0.0.1 for the benchmark with one webhook endpoint subscribed to `*`. It
 * answers 204 at once and counts distinct webhook-id values; it does not verify signatures (the
 * webhook tests do), so that it takes little of the CPU the service and PostgreSQL share with it.
 * `serviceEnv` goes into the service's environment (an admin, the development switches);
 * `subscribe` subscribes the receiver once the service serves; `finish` waits for the events.
 */
export async function startWebhookBench() {
  const seen = new Map<string, number>();
  const server = createServer((request, response) => {
    const id = String(request.headers['webhook-id']);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    request.resume().on('end', () => response.writeHead(204).end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

  return {
    url,
    serviceEnv: { ADMIN_UPI_IDS: ADMIN_UPI_ID, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    async subscribe(baseUrl: string): Promise<void> {
      const post = (path: string, body: unknown, token?: string) =>
        fetch(baseUrl + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
      const user = { name: 'Bench Webhook Admin', upiId: ADMIN_UPI_ID, phoneNumber: '9000000001', balance: 0 };
      const registered = await post('/api/v1/users', user);
      if (registered.status !== 201 && registered.status !== 409) throw new Error(`admin: ${registered.status}`);
      const login = (await (await post('/api/v1/auth/login', { upiId: ADMIN_UPI_ID })).json()) as {
        accessToken: string;
      };
      const created = await post('/api/v1/admin/webhooks', { url, events: ['*'] }, login.accessToken);
      if (created.status !== 201) throw new Error(`webhook endpoint: ${created.status} ${await created.text()}`);
    },
    async finish(expected: number, timeoutMs = 120_000): Promise<WebhookBenchResult> {
      const started = Date.now();
      while (seen.size < expected && Date.now() - started < timeoutMs) await sleep(100);
      const drainMs = Date.now() - started;
      server.closeAllConnections();
      server.close();
      const duplicates = [...seen.values()].reduce((sum, calls) => sum + calls - 1, 0);
      return { expected, received: seen.size, duplicates, drainMs };
    },
  };
}
