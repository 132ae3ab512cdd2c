import { randomUUID } from 'node:crypto';
import { newIdempotencyKey, type ApiResponse, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, any>;

/** Issue 21.6: what contract fuzzing found, each pinned by a test. */
describe('the HTTP contract', () => {
  let t: TestApp;
  let document: Json;
  let admin: RegisteredUser;
  const adminUpiId = uniqueUpiId('admin');

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_UPI_IDS: adminUpiId, RATE_LIMIT_PER_SECOND: '1000' });
    document = (await t.api.get('/v3/api-docs')).body;
    admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
  });

  afterAll(() => t.close());

  function expectProblem(response: ApiResponse, status: number, slug: string): void {
    expect({ status: response.status, type: response.body?.type }).toEqual({
      status,
      type: `https://errors.payments.local/${slug}`,
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.requestId).toBe(response.headers.get('x-request-id'));
  }

  describe('an unknown method on an existing path is 405 with Allow, before anything reads a body', () => {
    it.each([
      ['without a body', {}],
      ['with a JSON body', { rawBody: '{"upiId":"a@b"}', headers: { 'content-type': 'application/json' } }],
      ['with a body of another type', { rawBody: 'x', headers: { 'content-type': 'text/plain' } }],
    ])('QUERY %s', async (_what, options) => {
      const users = await t.api.request('QUERY', '/api/v1/users', options);
      expectProblem(users, 405, 'method-not-allowed');
      expect(users.headers.get('allow')).toBe('GET, HEAD, POST');
      const one = await t.api.request('QUERY', `/api/v1/transactions/${randomUUID()}`, options);
      expectProblem(one, 405, 'method-not-allowed');
      expect(one.headers.get('allow')).toBe('GET, HEAD');
    });
  });

  describe('empty query parameters are not absent ones', () => {
    it.each(['size=', 'page=', 'cursor=', 'size=&page=0', 'page=&size=5'])(
      '?%s is 400 on every list that takes it',
      async (query) => {
        const lists = [
          `/api/v1/transactions/user/${encodeURIComponent(admin.upiId)}`,
          `/api/v1/users/${admin.referenceId}/ledger`,
        ];
        if (!query.startsWith('cursor')) lists.push('/api/v1/users');
        for (const list of lists) {
          const response = await t.api.get(`${list}?${query}`, admin.token);
          expectProblem(response, 400, 'invalid-request');
          expect(response.body.detail).toMatch(/^(size|page|cursor) must/);
        }
      },
    );

    it('absent ones still take their defaults', async () => {
      const response = await t.api.get(`/api/v1/users/${admin.referenceId}/ledger`, admin.token);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(expect.objectContaining({ page: 0, size: 10 }));
    });
  });

  describe('the OpenAPI document', () => {
    const operations = () =>
      Object.entries(document.paths as Json).flatMap(([path, item]) =>
        Object.entries(item as Json).map(([method, operation]) => ({ path, method, operation: operation as Json })),
      );

    it('documents 414 wherever a path parameter can be too long, and that is what such a request answers', async () => {
      const missing = operations()
        .filter(({ operation }) => (operation.parameters ?? []).some((p: Json) => p.in === 'path'))
        .filter(({ operation }) => !operation.responses['414'])
        .map(({ method, path }) => `${method} ${path}`);
      expect(missing).toEqual([]);
      const response = await t.api.get(`/api/v1/transactions/${'a'.repeat(200)}`, admin.token);
      expectProblem(response, 414, 'uri-too-long');
    });

    it('documents 503 on every API operation, and 413 and 415 on every one that takes a body', () => {
      const missing = operations().flatMap(({ path, method, operation }) => [
        ...(path.startsWith('/api/') && !operation.responses['503'] ? [`${method} ${path}: 503`] : []),
        ...(operation.requestBody && !operation.responses['413'] ? [`${method} ${path}: 413`] : []),
        ...(operation.requestBody && !operation.responses['415'] ? [`${method} ${path}: 415`] : []),
      ]);
      expect(missing).toEqual([]);
    });

    it('declares public ids as UUIDs', () => {
      const loose = operations().flatMap(({ method, path, operation }) =>
        (operation.parameters ?? [])
          .filter((p: Json) => p.in === 'path' && ['id', 'referenceId'].includes(p.name) && p.schema.format !== 'uuid')
          .map((p: Json) => `${method} ${path} ${p.name}`),
      );
      expect(loose).toEqual([]);
    });

    /** The value a link's runtime expression names in the answer it starts from. */
    function evaluate(expression: string, response: ApiResponse): string {
      const pointer = (text: string) =>
        text
          .replace(/^\$response\.body#\//, '')
          .split('/')
          .reduce((value: any, key) => value?.[key], response.body);
      if (expression.startsWith('$response.body#/')) return pointer(expression);
      return expression.replace(/\{(\$response\.body#\/[^}]+)\}/g, (_m, inner: string) => pointer(inner));
    }

    function link(operationId: string, status: string, name: string): Json {
      const operation = operations().find(({ operation }) => operation.operationId === operationId)!.operation;
      return operation.responses[status].links[name];
    }

    it('links register -> login -> transfer -> read -> reversal, and following them by hand works', async () => {
      const payee = await t.api.registerUser({ balance: 0 });
      const registered = await t.api.post('/api/v1/users', {
        name: 'Link Walker',
        upiId: uniqueUpiId('walker'),
        phoneNumber: '9123456780',
        balance: 50,
      });
      expect(registered.status).toBe(201);

      const logIn = link('UsersController_register', '201', 'LogIn');
      expect(logIn.operationId).toBe('AuthController_login');
      const loggedIn = await t.api.post('/api/v1/auth/login', { upiId: evaluate(logIn.requestBody.upiId, registered) });
      expect(loggedIn.status).toBe(200);

      const pay = link('AuthController_login', '200', 'TransferAsThisUser');
      expect(pay.operationId).toBe('TransactionsController_create');
      const transfer = await t.api.post(
        '/api/v1/transactions',
        { senderUpiId: evaluate(pay.requestBody.senderUpiId, loggedIn), receiverUpiId: payee.upiId, amount: 20 },
        {
          headers: {
            authorization: evaluate(pay.parameters['header.Authorization'], loggedIn),
            'idempotency-key': newIdempotencyKey(),
          },
        },
      );
      expect(transfer.status).toBe(201);

      const read = link('TransactionsController_create', '201', 'ReadTheTransaction');
      expect(read.operationId).toBe('TransactionsController_get');
      const fetched = await t.api.get(`/api/v1/transactions/${evaluate(read.parameters.id, transfer)}`, payee.token);
      expect([fetched.status, fetched.body.referenceId]).toEqual([200, transfer.body.referenceId]);

      const reverse = link('TransactionsController_create', '201', 'ReverseTheTransaction');
      expect(reverse.operationId).toBe('ReversalsController_create');
      const reversal = await t.api.post(
        `/api/v1/transactions/${evaluate(reverse.parameters.referenceId, transfer)}/reversals`,
        {},
        { token: payee.token, headers: { 'idempotency-key': newIdempotencyKey() } },
      );
      expect([reversal.status, reversal.body.originalReferenceId]).toEqual([201, transfer.body.referenceId]);
    });
  });
});
