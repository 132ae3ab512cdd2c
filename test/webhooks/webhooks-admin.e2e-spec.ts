import { Client } from 'pg';
import type { RegisteredUser } from '../support/api-client';
import { expectProblem } from '../support/problem';
import { waitUntil } from '../support/wait';
import {
  completedTransfer,
  createEndpoint,
  deliveriesOf,
  startWebhookHarness,
  type WebhookHarness,
  WebhookReceiver,
} from '../support/webhook-receiver';

const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const PUBLIC_URL = 'https://93.184.215.14/hooks'; // an address literal: no DNS needed, never called here

/** Default settings: https only, no private networks. */
describe('webhook endpoints (admin)', () => {
  let h: WebhookHarness;
  let user: RegisteredUser;
  beforeAll(async () => {
    h = await startWebhookHarness({ WEBHOOK_RETRY_SCHEDULE: '100ms' });
    user = await h.t.api.registerUser();
  });
  afterAll(() => h.close());
  const api = () => h.t.api;

  it('creates an endpoint and shows its secret once: never in the list, a read or anywhere after', async () => {
    const body = { url: PUBLIC_URL, events: ['TransferReversed'], description: 'Accounting sync' };
    const created = await api().post('/api/v1/admin/webhooks', body, { token: h.admin.token });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      ['createdAt', 'description', 'events', 'id', 'secret', 'status', 'url'].sort(),
    );
    expect(created.body).toMatchObject({ ...body, status: 'ENABLED' });
    expect(created.body.secret).toMatch(SECRET);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);

    const list = await api().get('/api/v1/admin/webhooks', h.admin.token);
    expect(list.status).toBe(200);
    expect(list.body.find((e: { id: string }) => e.id === created.body.id)).toEqual({
      ...body,
      id: created.body.id,
      status: 'ENABLED',
      createdAt: created.body.createdAt,
    });
    const one = await api().get(`/api/v1/admin/webhooks/${created.body.id}`, h.admin.token);
    expect(one.status).toBe(200);
    for (const text of [list.text, one.text]) {
      expect(text).not.toContain(created.body.secret.slice(6));
      expect(text).not.toContain('secret');
    }

    const rotated = await api().post(`/api/v1/admin/webhooks/${created.body.id}/rotate-secret`, undefined, {
      token: h.admin.token,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(SECRET);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect((await api().get(`/api/v1/admin/webhooks/${created.body.id}`, h.admin.token)).text).not.toContain(
      rotated.body.secret.slice(6),
    );

    expect(
      (await api().request('DELETE', `/api/v1/admin/webhooks/${created.body.id}`, { token: h.admin.token })).status,
    ).toBe(204);
    expectProblem(
      await api().get(`/api/v1/admin/webhooks/${created.body.id}`, h.admin.token),
      404,
      'webhook-not-found',
    );
    expectProblem(
      await api().request('DELETE', `/api/v1/admin/webhooks/${created.body.id}`, { token: h.admin.token }),
      404,
      'webhook-not-found',
    );
  });

  it.each([
    ['plain http', 'http://93.184.215.14/hooks', 'must use https'],
    ['a loopback address', 'https://127.0.0.1/hooks', '127.0.0.1'],
    ['a private 10.x address', 'https://10.1.2.3/hooks', '10.1.2.3'],
    ['a private 192.168.x address', 'https://192.168.0.10/hooks', '192.168.0.10'],
    ['a link-local (cloud metadata) address', 'https://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['IPv6 loopback', 'https://[::1]/hooks', '::1'],
    ['an IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hooks', '::ffff:7f00:1'],
    ['an IPv4-compatible IPv6 loopback', 'https://[::127.0.0.1]/hooks', '::7f00:1'],
    ['an IPv4-translated IPv6 loopback', 'https://[::ffff:0:127.0.0.1]/hooks', '::ffff:0:7f00:1'],
    [
      'a Teredo address whose client is loopback',
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
    ],
    ['a 6to4 address of a private network', 'https://[2002:c0a8:101::1]/hooks', '2002:c0a8:101::1'],
    ['a NAT64 address of cloud metadata', 'https://[64:ff9b::169.254.169.254]/hooks', '64:ff9b::a9fe:a9fe'],
    ['IPv6 unique-local', 'https://[fd00::1]/hooks', 'fd00::1'],
    ['the unspecified address', 'https://0.0.0.0/hooks', '0.0.0.0'],
    ['a name that resolves to loopback', 'https://localhost/hooks', 'localhost'],
    ['credentials in the URL', 'https://user:pass@93.184.215.14/hooks', 'credentials'],
    ['not a URL', 'hooks.example.com', 'absolute URL'],
  ])('refuses %s with 422 on url, and creates nothing', async (_case, url, detail) => {
    const before = (await api().get('/api/v1/admin/webhooks', h.admin.token)).body.length;
    const response = await api().post('/api/v1/admin/webhooks', { url, events: ['*'] }, { token: h.admin.token });
    expectProblem(response, 422, 'validation-failed');
    expect(Object.keys(response.body.errors)).toEqual(['url']);
    expect(response.body.errors.url).toContain(detail);
    expect((await api().get('/api/v1/admin/webhooks', h.admin.token)).body.length).toBe(before);
  });

  it('refuses bad event lists and queries with 422 naming the field', async () => {
    for (const events of [[], ['NoSuchEvent'], 'TransferCompleted', ['*', '*']]) {
      const response = await api().post(
        '/api/v1/admin/webhooks',
        { url: PUBLIC_URL, events },
        { token: h.admin.token },
      );
      expectProblem(response, 422, 'validation-failed');
      expect(Object.keys(response.body.errors)).toEqual(['events']);
    }
    const endpoint = await createEndpoint(api(), h.admin.token, { url: PUBLIC_URL, events: ['TransferReversed'] });
    const path = `/api/v1/admin/webhooks/${endpoint.id}/deliveries`;
    expect((await api().get(`${path}?status=LOST`, h.admin.token)).body.errors).toEqual({
      status: 'status must be one of: PENDING, DELIVERED, FAILED',
    });
    expect((await api().get(`${path}?limit=0`, h.admin.token)).body.errors).toHaveProperty('limit');
    expectProblem(await api().get('/api/v1/admin/webhooks/not-a-uuid', h.admin.token), 400, 'invalid-request');
    const unknown = '0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b';
    expectProblem(
      await api().get(`/api/v1/admin/webhooks/${unknown}/deliveries`, h.admin.token),
      404,
      'webhook-not-found',
    );
    expectProblem(
      await api().post(`${path}/${unknown}/retry`, undefined, { token: h.admin.token }),
      404,
      'webhook-delivery-not-found',
    );
  });

  it('answers 403 to a non-admin and 401 to no token on every route, and changes nothing', async () => {
    const endpoint = await createEndpoint(api(), h.admin.token, { url: PUBLIC_URL, events: ['TransferReversed'] });
    const base = `/api/v1/admin/webhooks`;
    const routes: [string, string][] = [
      ['POST', base],
      ['GET', base],
      ['GET', `${base}/${endpoint.id}`],
      ['DELETE', `${base}/${endpoint.id}`],
      ['POST', `${base}/${endpoint.id}/rotate-secret`],
      ['GET', `${base}/${endpoint.id}/deliveries`],
      ['POST', `${base}/${endpoint.id}/deliveries/${endpoint.id}/retry`],
    ];
    for (const [method, path] of routes) {
      const body = method === 'POST' ? { url: PUBLIC_URL, events: ['*'] } : undefined;
      expectProblem(await api().request(method, path, { token: user.token, body }), 403, 'forbidden-operation');
      expectProblem(await api().request(method, path, { body }), 401, 'unauthorized');
    }
    const after = await api().get(`${base}/${endpoint.id}`, h.admin.token);
    expect(after.body).toEqual({ ...endpoint, secret: undefined, createdAt: after.body.createdAt, description: null });
  });

  it('checks the address again at delivery: a row that names loopback is never called', async () => {
    // As if the name had been rebound to loopback after creation: the row bypasses the create check.
    const receiver = await new WebhookReceiver().start();
    const db = new Client({ connectionString: h.databaseUrl });
    await db.connect();
    try {
      const id = '7d1c4f0e-1111-4d4a-9a57-3f1c2d4e5a6b';
      await db.query(
        `INSERT INTO webhook_endpoints (reference_id, url, events, secret) VALUES ($1, $2, '{*}', 'whsec_AAAA')`,
        [id, receiver.url.replace('http:', 'https:')],
      );
      const bob = await api().registerUser();
      await completedTransfer(api(), user, bob.upiId);
      await waitUntil(async () => (await deliveriesOf(api(), h.admin.token, id))[0]?.status === 'FAILED', 'FAILED');
      const [delivery] = await deliveriesOf(api(), h.admin.token, id);
      expect(delivery).toMatchObject({ attempts: 2, lastStatusCode: null, nextAttemptAt: null });
      expect(delivery.lastError).toContain('127.0.0.1');
      expect(receiver.calls).toEqual([]);
      expect((await api().get(`/api/v1/admin/webhooks/${id}`, h.admin.token)).body.status).toBe('DISABLED');
    } finally {
      await db.end();
      await receiver.stop();
    }
  });
});

/** WEBHOOK_ENDPOINTS_MAX: each endpoint is one more outbound request per event, so their number is capped. */
describe('webhook endpoint cap', () => {
  let h: WebhookHarness;
  beforeAll(async () => (h = await startWebhookHarness({ WEBHOOK_ENDPOINTS_MAX: '3' })));
  afterAll(() => h.close());

  it('creates up to the cap even when creations race, then refuses with 409 and creates nothing', async () => {
    const create = () =>
      h.t.api.post('/api/v1/admin/webhooks', { url: PUBLIC_URL, events: ['*'] }, { token: h.admin.token });
    const responses = await Promise.all([1, 2, 3, 4, 5].map(create));
    expect(responses.map((response) => response.status).sort()).toEqual([201, 201, 201, 409, 409]);
    const refused = responses.find((response) => response.status === 409)!;
    expectProblem(refused, 409, 'conflict');
    expect(refused.body.detail).toBe(
      'There are already 3 webhook endpoints, the most allowed (WEBHOOK_ENDPOINTS_MAX): delete one before adding another',
    );
    const listed = (await h.t.api.get('/api/v1/admin/webhooks', h.admin.token)).body as { id: string }[];
    expect(listed).toHaveLength(3);

    await h.t.api.request('DELETE', `/api/v1/admin/webhooks/${listed[0].id}`, { token: h.admin.token });
    expect((await create()).status).toBe(201);
    expectProblem(await create(), 409, 'conflict');
  });

  it('documents the 409 on creation in the API document', async () => {
    const document = (await h.t.api.get('/v3/api-docs')).body;
    const responses = document.paths['/api/v1/admin/webhooks'].post.responses;
    expect(Object.keys(responses['409'].content['application/problem+json'].examples)).toEqual(['conflict']);
  });
});
