import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Resolver } from './url-safety';
import { RESPONSE_BODY_CAP_BYTES, sendWebhook } from './webhook-sender';

const open = { allowHttp: true, allowPrivateNetworks: true };
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const message = (url: string) => ({ url, secret, eventId: 'evt-1', payload: '{"amount":"1.0000"}' });

describe('sendWebhook against a real HTTP server on 127.0.0.1', () => {
  let server: Server;
  let port: number;
  let handler: Parameters<typeof createServer>[1];
  const seen: { host?: string; headers: Record<string, string>; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => handler!(request, response));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    seen.length = 0;
    handler = (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ host: request.headers.host, headers: request.headers as Record<string, string>, body });
        response.writeHead(204).end();
      });
    };
  });

  it('connects to the address it vetted, whatever the system resolver would say, and signs the body', async () => {
    // hooks.invalid never resolves in DNS: only the vetted answer can have reached the server.
    const pinned: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const result = await sendWebhook(message(`http://hooks.invalid:${port}/in`), open, pinned, 2000);
    expect(result).toEqual({ delivered: true, statusCode: 204 });
    expect(seen[0].host).toBe(`hooks.invalid:${port}`);
    expect(new Webhook(secret).verify(seen[0].body, seen[0].headers)).toEqual({ amount: '1.0000' });
  });

  it('refuses before connecting when the address is not allowed', async () => {
    const strict = { allowHttp: true, allowPrivateNetworks: false };
    const result = await sendWebhook(message(`http://127.0.0.1:${port}/in`), strict, async () => [], 2000);
    expect(result).toMatchObject({ delivered: false, kind: 'refused', statusCode: null });
    expect(seen).toEqual([]);
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    handler = (_request, response) => response.writeHead(307, { location: 'http://169.254.169.254/' }).end();
    const result = await sendWebhook(message(`http://127.0.0.1:${port}/in`), open, async () => [], 2000);
    expect(result).toEqual({ delivered: false, statusCode: 307, error: 'HTTP 307', kind: 'status' });
  });

  it('reads no more than a small cap of an endless answer', async () => {
    let written = 0;
    handler = (_request, response) => {
      response.writeHead(200);
      const pump = () => {
        while (written < 50 * 1024 * 1024 && response.write(Buffer.alloc(64 * 1024))) written += 64 * 1024;
        if (written < 50 * 1024 * 1024 && !response.destroyed) response.once('drain', pump);
      };
      pump();
    };
    const result = await sendWebhook(message(`http://127.0.0.1:${port}/in`), open, async () => [], 5000);
    expect(result).toEqual({ delivered: true, statusCode: 200 });
    expect(RESPONSE_BODY_CAP_BYTES).toBeLessThanOrEqual(4096);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });
});
