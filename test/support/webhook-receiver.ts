import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, type RegisteredUser, uniqueUpiId } from './api-client';
import { createScratchDatabase } from './db';
import { startTestApp, type TestApp } from './test-app';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The body exactly as sent: what the signature covers. */
  raw: string;
  eventId: string;
  /** The transfer the event is about, from the body. */
  transactionReferenceId: string | undefined;
  receivedAt: number;
  status?: number;
}

/** How the receiver answers one call: a status (after an optional delay), or 'hang' (never answers). */
export type WebhookAnswer = { status: number; delayMs?: number } | 'hang';

/** A real HTTP receiver on 127.0.0.1 that records every webhook call and answers as the test programs. */
export class WebhookReceiver {
  readonly calls: ReceivedWebhook[] = [];
  answer: (call: ReceivedWebhook) => WebhookAnswer = () => ({ status: 204 });
  /** The most calls for one webhook-id that were being answered at the same moment. */
  maxConcurrentPerEvent = 0;
  private readonly open = new Map<string, number>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => this.handle(request.headers, Buffer.concat(chunks).toString(), response));
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  /** The calls carrying one transfer's event. */
  callsFor(transactionReferenceId: string): ReceivedWebhook[] {
    return this.calls.filter((call) => call.transactionReferenceId === transactionReferenceId);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private handle(headers: IncomingHttpHeaders, raw: string, response: ServerResponse): void {
    let transactionReferenceId: string | undefined;
    try {
      transactionReferenceId = (JSON.parse(raw) as { transactionReferenceId?: string }).transactionReferenceId;
    } catch {
      // not JSON: recorded as it came
    }
    const eventId = String(headers['webhook-id']);
    const call: ReceivedWebhook = { headers, raw, eventId, transactionReferenceId, receivedAt: Date.now() };
    this.calls.push(call);
    const open = (this.open.get(call.eventId) ?? 0) + 1;
    this.open.set(call.eventId, open);
    this.maxConcurrentPerEvent = Math.max(this.maxConcurrentPerEvent, open);
    const finish = () => this.open.set(call.eventId, (this.open.get(call.eventId) ?? 1) - 1);
    response.on('close', finish);
    const answer = this.answer(call);
    if (answer === 'hang') return;
    const reply = () => {
      call.status = answer.status;
      if (!response.destroyed) response.writeHead(answer.status, { 'content-type': 'text/plain' }).end('ok');
    };
    if (answer.delayMs) setTimeout(reply, answer.delayMs).unref();
    else reply();
  }
}

/** The service on a database of its own (no other test's instances claim its deliveries), with an admin. */
export interface WebhookHarness {
  t: TestApp;
  databaseUrl: string;
  admin: RegisteredUser;
  close(): Promise<void>;
}

export const DEVELOPMENT_SWITCHES = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

export async function startWebhookHarness(env: Record<string, string> = {}): Promise<WebhookHarness> {
  const scratch = await createScratchDatabase();
  const adminUpiId = uniqueUpiId('admin');
  const t = await startTestApp({ DATABASE_URL: scratch.url, ADMIN_UPI_IDS: adminUpiId, ...env });
  const admin = await t.api.registerUser({ upiId: adminUpiId });
  return {
    t,
    databaseUrl: scratch.url,
    admin,
    close: async () => {
      await t.close();
      await scratch.drop();
    },
  };
}

/** Creates an endpoint as the admin; fails the test on anything but 201. */
export async function createEndpoint(
  api: ApiClient,
  adminToken: string,
  body: { url: string; events: string[]; description?: string },
): Promise<{ id: string; secret: string; url: string; events: string[]; status: string }> {
  const response = await api.post('/api/v1/admin/webhooks', body, { token: adminToken });
  if (response.status !== 201) throw new Error(`endpoint creation failed: ${response.status} ${response.text}`);
  return response.body;
}

/** The admin's view of an endpoint's deliveries. */
export async function deliveriesOf(api: ApiClient, adminToken: string, endpointId: string, query = '') {
  const response = await api.get(`/api/v1/admin/webhooks/${endpointId}/deliveries${query}`, adminToken);
  if (response.status !== 200) throw new Error(`delivery list failed: ${response.status} ${response.text}`);
  return response.body as {
    id: string;
    eventId: string;
    eventType: string;
    status: string;
    attempts: number;
    lastStatusCode: number | null;
    lastError: string | null;
    nextAttemptAt: string | null;
  }[];
}

/** A completed transfer; returns its referenceId (the event's transactionReferenceId). */
export async function completedTransfer(api: ApiClient, sender: RegisteredUser, receiverUpiId: string, amount = 1) {
  const response = await api.transfer(sender, receiverUpiId, amount);
  if (response.status !== 201) throw new Error(`transfer failed: ${response.status} ${response.text}`);
  return response.body.referenceId as string;
}

export { ApiClient };
