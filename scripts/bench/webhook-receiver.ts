import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

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

const ADMIN_UPI_ID = 'bench.webhook.admin@okbank';

/**
 * The --webhook receiver on 127.0.0.1: answers 204 at once and counts distinct webhook-id values
 * (no signature checks, to leave the CPU to the service). `serviceEnv` configures the service,
 * `subscribe` subscribes the receiver to `*`, `finish` waits for the events.
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
