import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { startWebhookBench } from '../scripts/bench/webhook-receiver';

const request = (id: string, body = '{"amount":"1.0000"}') =>
  `POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
  `Webhook-Id: ${id}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** Reads until `count` answers arrived on the socket; returns their status lines. */
async function answers(socket: Socket, count: number): Promise<string[]> {
  let text = '';
  while ((text.match(/HTTP\/1\.1 \d+/g) ?? []).length < count) {
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    text += chunk.toString('latin1');
  }
  return text.match(/HTTP\/1\.1 \d+[^\r]*/g)!;
}

/** The bench receiver's own HTTP framing: whatever way TCP cuts the requests, each id counts once per call. */
describe('the benchmark webhook receiver, on a raw socket', () => {
  it('counts requests that arrive together, byte by byte, and twice', async () => {
    const bench = await startWebhookBench();
    const socket = connect(Number(new URL(bench.url).port), '127.0.0.1');
    await once(socket, 'connect');
    try {
      socket.write(request('evt-A') + request('evt-B')); // two in one segment
      expect(await answers(socket, 2)).toEqual(['HTTP/1.1 204 No Content', 'HTTP/1.1 204 No Content']);
      const split = request('evt-C', '{"note":"चाय"}'); // a multi-byte body: content-length counts bytes
      for (const byte of Buffer.from(split)) socket.write(Buffer.from([byte]));
      expect(await answers(socket, 1)).toEqual(['HTTP/1.1 204 No Content']);
      socket.write(request('evt-A'));
      expect(await answers(socket, 1)).toEqual(['HTTP/1.1 204 No Content']);
      socket.write('POST /webhooks HTTP/1.1\r\nWebhook-Id: evt-D\r\nTransfer-Encoding: chunked\r\n\r\n');
      expect(await answers(socket, 1)).toEqual(['HTTP/1.1 400 Bad Request']);
      expect(await bench.finish(3, 5000)).toMatchObject({ expected: 3, received: 3, duplicates: 1 });
    } finally {
      socket.destroy();
    }
  });
});
