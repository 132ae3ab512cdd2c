import { Worker } from 'node:worker_threads';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { QrCodes } from '../../src/payment-requests/qr-codes';
import type { RegisteredUser } from '../support/api-client';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

/** The largest code a request can carry: the maximum amount and a 255-character CJK note. */
const LARGEST = { amount: 1000000, note: '支付'.repeat(127) + '付', expiresInSeconds: 604800 };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * QR codes cost nothing twice (issue 38): each rendered once, on a worker thread, cached by its
 * ETag; clients may keep it (ETag, If-None-Match → 304, Cache-Control), and one user cannot have
 * more than two renders under way. `t` caches; `uncached` (QR_CACHE_MAX_BYTES=0) renders every
 * fetch, which shows the rendering itself is off the event loop.
 */
describe('payment request QR codes under load', () => {
  let t: TestApp;
  let uncached: TestApp;
  beforeAll(async () => {
    [t, uncached] = await Promise.all([startTestApp(), startTestApp({ QR_CACHE_MAX_BYTES: '0' })]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), uncached.close()]);
  });

  const createLargest = async (app: TestApp, payee: RegisteredUser) => {
    const created = await app.api.post('/api/v1/payment-requests', LARGEST, { token: payee.token });
    expect(created.status).toBe(201);
    return created.body as { referenceId: string; upiUri: string };
  };
  const fetchQr = (app: TestApp, referenceId: string, token: string, format = 'png', headers = {}) =>
    fetch(`${app.api.baseUrl}/api/v1/payment-requests/${referenceId}/qr?format=${format}`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
  const decode = (png: Buffer) => {
    const image = PNG.sync.read(png);
    return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
  };

  it.each([
    ['cached', () => t],
    ['rendered on every fetch', () => uncached],
  ])(
    "while one user fetches the largest PNG 8 at a time, another user's profile read stays under 100 ms median (%s)",
    async (_name, appOf) => {
      const app = appOf();
      const [hammerer, reader] = await Promise.all([app.api.registerUser(), app.api.registerUser()]);
      const request = await createLargest(app, hammerer);
      const readProfile = async () => {
        const started = performance.now();
        const profile = await app.api.get(`/api/v1/users/${reader.referenceId}`, reader.token);
        expect(profile.status).toBe(200);
        return performance.now() - started;
      };
      // Warm up: the first render, the first read and the JIT are not what is measured.
      expect((await fetchQr(app, request.referenceId, hammerer.token)).status).toBe(200);
      for (let i = 0; i < 3; i += 1) await readProfile();

      const hammer = startHammer(
        `${app.api.baseUrl}/api/v1/payment-requests/${request.referenceId}/qr?format=png`,
        hammerer.token,
      );
      const latencies: number[] = [];
      let statuses: number[];
      try {
        // Reads for as long as three rounds of eight take, and at least 25 of them (15 s at most).
        const deadline = Date.now() + 15_000;
        while ((hammer.fetched() < 24 || latencies.length < 25) && Date.now() < deadline) {
          latencies.push(await readProfile());
        }
      } finally {
        statuses = await hammer.stop();
      }
      expect(statuses.length).toBeGreaterThanOrEqual(24);
      expect(statuses.every((status) => status === 200)).toBe(true);
      expect(median(latencies)).toBeLessThan(100);
    },
    60_000,
  );

  it('renders a code once: the second fetch is the same bytes and ETag from the cache, If-None-Match is 304', async () => {
    const [payee, payer] = await Promise.all([t.api.registerUser(), t.api.registerUser()]);
    const request = await createLargest(t, payee);
    const codes = t.app.get(QrCodes);
    const rendersBefore = codes.rendersStarted;

    const first = await fetchQr(t, request.referenceId, payer.token);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('cache-control')).toBe('private, max-age=604800, immutable');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const firstBytes = Buffer.from(await first.arrayBuffer());
    expect(decode(firstBytes)).toBe(request.upiUri);

    const second = await fetchQr(t, request.referenceId, payee.token);
    expect(second.status).toBe(200);
    expect(second.headers.get('etag')).toBe(etag);
    expect(Buffer.from(await second.arrayBuffer()).equals(firstBytes)).toBe(true);

    const kept = await fetchQr(t, request.referenceId, payer.token, 'png', { 'if-none-match': `"other", ${etag}` });
    expect(kept.status).toBe(304);
    expect(kept.headers.get('etag')).toBe(etag);
    expect(kept.headers.get('cache-control')).toBe('private, max-age=604800, immutable');
    expect(await kept.text()).toBe('');
    expect(codes.rendersStarted - rendersBefore).toBe(1);

    // The SVG is another image with its own tag; a stale tag gets the bytes again.
    const svg = await fetchQr(t, request.referenceId, payer.token, 'svg', { 'if-none-match': etag! });
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(svg.headers.get('etag')).not.toBe(etag);
    expect(await svg.text()).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    expect(codes.rendersStarted - rendersBefore).toBe(2);
  });

  it('eight fetches of a code not yet rendered share one render', async () => {
    const payee = await t.api.registerUser();
    const request = await createLargest(t, payee);
    const codes = t.app.get(QrCodes);
    const rendersBefore = codes.rendersStarted;
    const answers = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const answer = await fetchQr(t, request.referenceId, payee.token);
        return { status: answer.status, etag: answer.headers.get('etag'), bytes: await answer.arrayBuffer() };
      }),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((answer) => answer.etag)).size).toBe(1);
    expect(codes.rendersStarted - rendersBefore).toBe(1);
    expect(decode(Buffer.from(answers[0].bytes))).toBe(request.upiUri);
  });

  it('one user gets at most two renders at once (429 with Retry-After); another user still gets theirs', async () => {
    const [greedy, other] = await Promise.all([uncached.api.registerUser(), uncached.api.registerUser()]);
    const requests = await Promise.all(Array.from({ length: 6 }, () => createLargest(uncached, greedy)));
    const answers = await Promise.all(
      requests.map(async (request) => {
        const answer = await fetchQr(uncached, request.referenceId, greedy.token);
        const text = await answer.text();
        return { status: answer.status, headers: answer.headers, text, body: safeJson(text) };
      }),
    );
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const answer of refused) {
      expectProblem(answer, 429, 'rate-limit-exceeded');
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
    // Neither another user nor the same user afterwards is held back.
    expect((await fetchQr(uncached, requests[0].referenceId, other.token)).status).toBe(200);
    expect((await fetchQr(uncached, requests[5].referenceId, greedy.token)).status).toBe(200);
  });

  it('the API document lists what the QR route answers: ETag and Cache-Control, 304, 429 with Retry-After', async () => {
    const qr = (await t.api.get('/v3/api-docs')).body.paths['/api/v1/payment-requests/{referenceId}/qr'].get;
    expect(qr.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'If-None-Match' })]),
    );
    for (const status of ['200', '304']) {
      expect(Object.keys(qr.responses[status].headers)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control']));
    }
    expect(qr.responses['304'].content).toBeUndefined();
    const tooMany = qr.responses['429'];
    expect(tooMany.headers['Retry-After'].required).toBe(true);
    expect(Object.keys(tooMany.content['application/problem+json'].examples)).toEqual(['rate-limit-exceeded']);
  });

  it('an unknown request is 404 even with If-None-Match: * (nothing is there to match)', async () => {
    const user = await t.api.registerUser();
    const unknown = await fetchQr(t, '0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b', user.token, 'png', {
      'if-none-match': '*',
    });
    const text = await unknown.text();
    expectProblem(
      { status: unknown.status, headers: unknown.headers, text, body: safeJson(text) },
      404,
      'payment-request-not-found',
    );
  });
});

/**
 * Eight fetches at a time, round after round, from a thread of its own: the load the service sees,
 * without the test's own HTTP client competing with the service for its event loop.
 */
const HAMMER_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, token } = workerData;
let loading = true;
parentPort.on('message', () => (loading = false));
(async () => {
  const statuses = [];
  while (loading) {
    const answers = await Promise.all(Array.from({ length: 8 }, async () => {
      const answer = await fetch(url, { headers: { authorization: 'Bearer ' + token } });
      await answer.arrayBuffer();
      return answer.status;
    }));
    statuses.push(...answers);
    parentPort.postMessage({ fetched: statuses.length });
  }
  parentPort.postMessage({ statuses });
})();
`;

function startHammer(url: string, token: string) {
  const thread = new Worker(HAMMER_THREAD, { eval: true, workerData: { url, token } });
  let fetched = 0;
  const finished = new Promise<number[]>((resolve, reject) => {
    thread.on('message', (message: { fetched?: number; statuses?: number[] }) => {
      if (message.fetched !== undefined) fetched = message.fetched;
      if (message.statuses) resolve(message.statuses);
    });
    thread.on('error', reject);
  });
  return {
    fetched: () => fetched,
    stop: async () => {
      thread.postMessage('stop');
      const statuses = await finished;
      await thread.terminate();
      return statuses;
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
