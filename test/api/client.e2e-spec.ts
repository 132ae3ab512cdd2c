import { randomUUID } from 'node:crypto';
import { newIdempotencyKey, randomPhone, uniqueUpiId } from '../support/api-client';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';
import { asApiResponse, rawText, typedClient } from '../support/typed-client';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Users and transfers through the generated client, checking each answer against what the document promises. */
describe('the generated TypeScript client against the running service', () => {
  let t: TestApp;
  let document: any;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '2' });
    document = (await t.api.get('/v3/api-docs')).body;
  });
  afterAll(() => t.close());

  /** Every header the document marks required for this answer is on the real answer. */
  function expectDocumentedHeaders(method: string, path: string, response: Response): void {
    const documented = document.paths[path][method].responses[response.status];
    expect(documented).toBeDefined();
    const required = Object.entries(documented.headers ?? {})
      .filter(([, header]: [string, any]) => header.required)
      .map(([name]) => name);
    expect(required).toContain('X-Request-Id');
    for (const name of required)
      expect({ name, value: response.headers.get(name) }).toEqual({ name, value: expect.any(String) });
  }

  async function registerAndLogIn(balance: number) {
    const upiId = uniqueUpiId('client');
    const registered = await typedClient(t.api.baseUrl).POST('/api/v1/users', {
      body: { name: 'Client User', upiId, phoneNumber: randomPhone(), balance },
    });
    expect(registered.response.status).toBe(201);
    expectDocumentedHeaders('post', '/api/v1/users', registered.response);
    const login = await typedClient(t.api.baseUrl).POST('/api/v1/auth/login', { body: { upiId } });
    expect(login.response.status).toBe(200);
    return {
      user: registered.data!,
      token: login.data!.accessToken,
      location: registered.response.headers.get('location'),
    };
  }

  it('registers, logs in and reads the own account, with Location and X-Request-Id as documented', async () => {
    const { user, token, location } = await registerAndLogIn(250.25);
    expect(user).toEqual(expect.objectContaining({ upiId: expect.stringMatching(/^client\./), balance: '250.2500' }));
    expect(location).toBe(`/api/v1/users/${user.referenceId}`);

    const account = await typedClient(t.api.baseUrl, token).GET('/api/v1/users/upi/{upiId}', {
      params: { path: { upiId: user.upiId } },
    });
    expect(account.response.status).toBe(200);
    expect(account.data).toEqual(
      expect.objectContaining({ upiId: user.upiId, balance: '250.2500', version: expect.any(Number) }),
    );
    expect(account.response.headers.get('x-request-id')).toMatch(UUID);
    expectDocumentedHeaders('get', '/api/v1/users/upi/{upiId}', account.response);
  });

  it('transfers once per Idempotency-Key and replays with Idempotent-Replayed: true', async () => {
    const [alice, bob] = await Promise.all([registerAndLogIn(100), registerAndLogIn(0)]);
    const client = typedClient(t.api.baseUrl, alice.token);
    const key = newIdempotencyKey();
    const send = () =>
      client.POST('/api/v1/transactions', {
        params: { header: { 'Idempotency-Key': key } },
        body: { senderUpiId: alice.user.upiId, receiverUpiId: bob.user.upiId, amount: 40.5, note: 'books' },
      });

    const first = await send();
    expect(first.response.status).toBe(201);
    expect(first.data).toEqual(
      expect.objectContaining({ amount: '40.5000', note: 'books', status: 'COMPLETED', type: 'TRANSFER' }),
    );
    expect(first.response.headers.get('location')).toBe(`/api/v1/transactions/${first.data!.referenceId}`);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expectDocumentedHeaders('post', '/api/v1/transactions', first.response);

    const replay = await send();
    expect(replay.response.status).toBe(201);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(rawText(replay.response)).toBe(rawText(first.response));
    expectDocumentedHeaders('post', '/api/v1/transactions', replay.response);

    const account = await typedClient(t.api.baseUrl, alice.token).GET('/api/v1/users/upi/{upiId}', {
      params: { path: { upiId: alice.user.upiId } },
    });
    expect(account.data!.balance).toBe('59.5000');
  });

  it('answers documented problems: 422 insufficient balance, 404 unknown transaction, 429 with Retry-After', async () => {
    const [alice, bob] = await Promise.all([registerAndLogIn(1), registerAndLogIn(0)]);
    const client = typedClient(t.api.baseUrl, alice.token);
    const transfer = (amount: number) =>
      client.POST('/api/v1/transactions', {
        params: { header: { 'Idempotency-Key': newIdempotencyKey() } },
        body: { senderUpiId: alice.user.upiId, receiverUpiId: bob.user.upiId, amount },
      });

    const poor = await transfer(5);
    expectProblem(asApiResponse(poor), 422, 'insufficient-balance');
    expect(Object.keys(document.paths['/api/v1/transactions'].post.responses)).toContain('422');

    const missing = await client.GET('/api/v1/transactions/{id}', { params: { path: { id: randomUUID() } } });
    expectProblem(asApiResponse(missing), 404, 'transaction-not-found');

    // RATE_LIMIT_PER_SECOND=2: a burst of ten is refused at least once.
    const burst = await Promise.all(Array.from({ length: 10 }, () => 0).map(() => transfer(0.01)));
    const limited = burst.find((answer) => answer.response.status === 429);
    expect(limited).toBeDefined();
    expectProblem(asApiResponse(limited!), 429, 'rate-limit-exceeded');
    expectDocumentedHeaders('post', '/api/v1/transactions', limited!.response);
    expect(limited!.response.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
