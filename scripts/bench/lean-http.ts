import { connect, type Socket } from 'node:net';
import type { HttpResult } from './http-driver';

interface Connection {
  socket: Socket;
  received: Buffer;
  failed: boolean;
  answer?: { resolve: (result: HttpResult) => void; reject: (error: Error) => void };
}

const HEAD_END = '\r\n\r\n';

/**
 * The client of the timed transfers: HTTP/1.1 keep-alive over plain sockets, one request at a time
 * per connection, each request written in one piece, each answer read by its Content-Length.
 * The bench shares the machine it measures, so its own CPU is taken from the service: node:http
 * spent 0.23-0.26 ms per transfer, this client 0.10-0.12 (about a tenth of the throughput on two
 * cores). Everything else the bench sends goes through node:http (HttpDriver). An answer without
 * a Content-Length fails its request: this client is for the service's JSON answers only.
 */
export class LeanHttpClient {
  private readonly idle: Connection[] = [];
  private readonly waiting: ((connection: Connection) => void)[] = [];
  private opened = 0;

  constructor(
    private readonly baseUrl: URL,
    private readonly connections: number,
  ) {}

  async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    const payload = body === undefined ? '' : JSON.stringify(body);
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.baseUrl.host}\r\n`;
    if (body !== undefined)
      head += `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    const connection = await this.take();
    return new Promise<HttpResult>((resolve, reject) => {
      connection.answer = { resolve, reject };
      connection.socket.write(`${head}\r\n${payload}`);
    });
  }

  close(): void {
    for (const connection of this.idle.splice(0)) connection.socket.destroy();
  }

  private take(): Promise<Connection> {
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.opened < this.connections) return Promise.resolve(this.open());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private give(connection: Connection): void {
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }

  private open(): Connection {
    this.opened += 1;
    const socket = connect(Number(this.baseUrl.port), this.baseUrl.hostname).setNoDelay(true);
    const connection: Connection = { socket, received: Buffer.alloc(0), failed: false };
    socket.on('data', (chunk: Buffer) => this.receive(connection, chunk));
    socket.on('error', (error) => this.fail(connection, error));
    socket.on('close', () => this.fail(connection, new Error('connection closed before the answer')));
    return connection;
  }

  /** A failed connection is dropped and its request fails; a waiting request gets a new one. */
  private fail(connection: Connection, error: Error): void {
    if (connection.failed) return;
    connection.failed = true;
    connection.socket.destroy();
    const index = this.idle.indexOf(connection);
    if (index >= 0) this.idle.splice(index, 1);
    this.opened -= 1;
    const answer = connection.answer;
    connection.answer = undefined;
    answer?.reject(error);
    const next = this.waiting.shift();
    if (next) next(this.open());
  }

  private receive(connection: Connection, chunk: Buffer): void {
    connection.received = connection.received.length === 0 ? chunk : Buffer.concat([connection.received, chunk]);
    const headEnd = connection.received.indexOf(HEAD_END);
    if (headEnd < 0) return;
    const head = connection.received.subarray(0, headEnd).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
    if (length === undefined) {
      this.fail(connection, new Error(`an answer without Content-Length: ${head.split('\r\n')[0]}`));
      return;
    }
    const end = headEnd + HEAD_END.length + Number(length);
    if (connection.received.length < end) return;
    const body = connection.received.subarray(headEnd + HEAD_END.length, end).toString();
    connection.received = connection.received.subarray(end);
    const answer = connection.answer;
    connection.answer = undefined;
    this.give(connection);
    answer?.resolve({ status: Number(head.slice(9, 12)), body });
  }
}
