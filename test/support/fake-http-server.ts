import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface RecordedCall {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** Set once the server has sent its answer (a slow answer may still be pending when the client gave up). */
  answered?: boolean;
}

/** A real HTTP server on 127.0.0.1 whose answers a test programs; it records every call. */
export abstract class FakeHttpServer {
  readonly calls: RecordedCall[] = [];
  private server: Server | undefined;
  url = '';

  protected abstract answer(call: RecordedCall, response: ServerResponse): Promise<void> | void;

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    this.url = `http://127.0.0.1:${address.port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the raw text
    }
    const call: RecordedCall = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
    this.calls.push(call);
    try {
      await this.answer(call, response);
    } catch {
      if (!response.headersSent) response.writeHead(500).end();
    } finally {
      call.answered = true;
    }
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A delay that never keeps the test process alive on its own. */
export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
