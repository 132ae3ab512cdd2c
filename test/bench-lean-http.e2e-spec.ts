import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LeanHttpClient } from '../scripts/bench/lean-http';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

async function withServer(handler: Handler, work: (url: URL, server: Server) => Promise<void>) {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handler(request, Buffer.concat(chunks).toString(), response));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await work(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), server);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const json = (response: ServerResponse, status: number, value: unknown) => {
  const text = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
};

describe("the load generator's lean HTTP client", () => {
  it('posts JSON with its headers and reads the status and the whole body', async () => {
    await withServer(
      (request, body, response) =>
        json(response, 201, {
          method: request.method,
          url: request.url,
          key: request.headers['idempotency-key'],
          body,
        }),
      async (url) => {
        const client = new LeanHttpClient(url, 2);
        const result = await client.send(
          'POST',
          '/api/v1/transactions',
          { amount: '10.00', note: 'ünïcode' },
          {
            'idempotency-key': 'k-1',
          },
        );
        expect(result.status).toBe(201);
        expect(JSON.parse(result.body)).toEqual({
          method: 'POST',
          url: '/api/v1/transactions',
          key: 'k-1',
          body: JSON.stringify({ amount: '10.00', note: 'ünïcode' }),
        });
        client.close();
      },
    );
  });

  it('reads an answer that arrives in pieces, and answers many requests over at most its connections', async () => {
    const sockets = new Set<unknown>();
    await withServer(
      (request, body, response) => {
        sockets.add(request.socket);
        const text = JSON.stringify({ echo: body });
        response.writeHead(200, { 'content-length': Buffer.byteLength(text) });
        response.flushHeaders();
        // The head first, the body a moment later, itself in two writes.
        setTimeout(() => {
          response.write(text.slice(0, 5));
          setTimeout(() => response.end(text.slice(5)), 2);
        }, 2);
      },
      async (url) => {
        const client = new LeanHttpClient(url, 3);
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => client.send('POST', '/', { i })));
        expect(results.map((result) => JSON.parse(JSON.parse(result.body).echo).i)).toEqual(
          Array.from({ length: 20 }, (_, i) => i),
        );
        expect(sockets.size).toBeLessThanOrEqual(3);
        client.close();
      },
    );
  });

  it('fails a request whose answer has no Content-Length or whose connection closes, and goes on with a new connection', async () => {
    let calls = 0;
    await withServer(
      (request, _body, response) => {
        calls += 1;
        if (request.url === '/chunked') {
          response.writeHead(200, { 'transfer-encoding': 'chunked' });
          response.end('streamed');
        } else if (request.url === '/drop') {
          request.socket.destroy();
        } else {
          json(response, 200, { calls });
        }
      },
      async (url) => {
        const client = new LeanHttpClient(url, 1);
        await expect(client.send('GET', '/chunked')).rejects.toThrow('without Content-Length');
        await expect(client.send('GET', '/drop')).rejects.toThrow('closed');
        const after = await client.send('GET', '/ok');
        expect(after.status).toBe(200);
        expect(JSON.parse(after.body)).toEqual({ calls: 3 });
        client.close();
      },
    );
  });
});
