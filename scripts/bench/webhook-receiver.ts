import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
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

export interface WebhookBench {
  /** Where the receiver listens (http, 127.0.0.1). */
  url: string;
  /** Merge into the service's environment: an admin to subscribe with, and the two development switches. */
  serviceEnv: Record<string, string>;
  /** Once the service serves: registers the admin, logs in and subscribes the receiver to every event. */
  subscribe(baseUrl: string): Promise<void>;
  /** After the load: waits until `expected` distinct events arrived (or `timeoutMs`), then stops the receiver. */
  finish(expected: number, timeoutMs?: number): Promise<WebhookBenchResult>;
}

const ADMIN_UPI_ID = 'bench.webhook.admin@okbank';

/**
 * A receiver on 127.0.0.1 for the benchmark with one webhook endpoint subscribed to `*`. It
 * answers 204 at once and counts distinct webhook-id values; it does not verify signatures,
 * so that it takes as little of the machine's CPU as it can (the tests verify them). It shares
 * the cores with the service and PostgreSQL, so it speaks just enough HTTP/1.1 on a plain TCP
 * socket (a request line, headers with content-length, a body) instead of node:http's objects.
 */
export async function startWebhookBench(): Promise<WebhookBench> {
  const seen = new Map<string, number>();
  const count = (id: string) => seen.set(id, (seen.get(id) ?? 0) + 1);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveRequests(socket, count);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

  return {
    url,
    serviceEnv: { ADMIN_UPI_IDS: ADMIN_UPI_ID, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    async subscribe(baseUrl) {
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
    async finish(expected, timeoutMs = 120_000) {
      const started = Date.now();
      while (seen.size < expected && Date.now() - started < timeoutMs) await sleep(100);
      const drainMs = Date.now() - started;
      for (const socket of sockets) socket.destroy();
      server.close();
      const duplicates = [...seen.values()].reduce((sum, calls) => sum + calls - 1, 0);
      return { expected, received: seen.size, duplicates, drainMs };
    },
  };
}

const HEADERS_END = '\r\n\r\n';
const NO_CONTENT = 'HTTP/1.1 204 No Content\r\n\r\n';
const BAD_REQUEST = 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n';

/**
 * Reads keep-alive requests off one connection, however TCP splits or joins them, and answers
 * each with 204 (400 and close for one it cannot frame: no content-length, or chunked). Latin-1
 * keeps one character per byte, so content-length counts characters.
 */
function serveRequests(socket: Socket, count: (id: string) => void): void {
  let buffered = '';
  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    let answers = '';
    for (;;) {
      const headersEnd = buffered.indexOf(HEADERS_END);
      if (headersEnd < 0) break;
      const head = buffered.slice(0, headersEnd).toLowerCase();
      const length = /\r\ncontent-length: *(\d+)/.exec(head);
      if (!length || head.includes('\r\ntransfer-encoding:')) {
        socket.end(answers + BAD_REQUEST);
        return;
      }
      const end = headersEnd + HEADERS_END.length + Number(length[1]);
      if (buffered.length < end) break;
      // Found in the lower-cased copy, read from the original (the same offsets: Latin-1 case maps 1:1).
      const id = /\r\nwebhook-id: *([^\r]*)/.exec(head);
      const idStart = id ? id.index + id[0].length - id[1].length : 0;
      count(id ? buffered.slice(idStart, idStart + id[1].length) : 'undefined');
      buffered = buffered.slice(end);
      answers += NO_CONTENT;
    }
    if (answers) socket.write(answers);
  });
}
