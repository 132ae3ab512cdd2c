import { Client } from 'pg';
import { randomPhone, uniqueUpiId } from '../support/api-client';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function registration(overrides: Record<string, unknown> = {}) {
  return { name: 'Asha Verma', upiId: uniqueUpiId('asha'), phoneNumber: randomPhone(), balance: 1500, ...overrides };
}

describe('users', () => {
  let t: TestApp;
  let db: Client;
  let admin: Awaited<ReturnType<TestApp['api']['registerUser']>>;
  const adminUpiId = uniqueUpiId('admin');

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_UPI_IDS: adminUpiId });
    db = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await db.connect();
    admin = await t.api.registerUser({ upiId: adminUpiId });
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  async function countUsers(upiId: string): Promise<number> {
    const result = await db.query('SELECT count(*)::int AS n FROM users WHERE lower(upi_id) = lower($1)', [upiId]);
    return result.rows[0].n;
  }

  describe('POST /api/v1/users (register)', () => {
    it('answers 201 with the user, a Location header and money with 4 decimals', async () => {
      const body = registration({ balance: 1500.5 });
      const response = await t.api.post('/api/v1/users', body);
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        referenceId: expect.stringMatching(UUID),
        name: body.name,
        upiId: body.upiId,
        phoneNumber: body.phoneNumber,
        balance: 1500.5,
        createdAt: expect.stringMatching(ISO_UTC),
        updatedAt: expect.stringMatching(ISO_UTC),
      });
      expect(response.text).toContain('"balance":1500.5000');
      expect(response.headers.get('location')).toBe(`/api/v1/users/${response.body.referenceId}`);
    });

    it('writes the opening balance as a CREDIT in the ledger', async () => {
      const user = await t.api.registerUser({ balance: '250.25' });
      const ledger = await t.api.get(`/api/v1/users/${user.referenceId}/ledger`, user.token);
      expect(ledger.body.content).toEqual([
        expect.objectContaining({ entryType: 'CREDIT', amount: 250.25, balanceBefore: 0, balanceAfter: 250.25 }),
      ]);
      expect(ledger.text).toContain('"balanceAfter":250.2500');
    });

    it('writes no ledger entry for a zero opening balance', async () => {
      const user = await t.api.registerUser({ balance: 0 });
      const ledger = await t.api.get(`/api/v1/users/${user.referenceId}/ledger`, user.token);
      expect(ledger.body.totalElements).toBe(0);
      expect(ledger.text).toContain('"content":[]');
    });

    it('keeps a 19-digit balance exact, from a JSON number and from a string', async () => {
      const fromNumber = await t.api.request('POST', '/api/v1/users', {
        rawBody: JSON.stringify(registration()).replace(/"balance":1500/, '"balance":123456789012345.6789'),
      });
      expect(fromNumber.status).toBe(201);
      expect(fromNumber.text).toContain('"balance":123456789012345.6789');
      const fromString = await t.api.post('/api/v1/users', registration({ balance: '999999999999999.9999' }));
      expect(fromString.text).toContain('"balance":999999999999999.9999');
    });

    it('rounds more than 4 decimals HALF_EVEN', async () => {
      const even = await t.api.post('/api/v1/users', registration({ balance: '10.00005' }));
      expect(even.text).toContain('"balance":10.0000');
      const odd = await t.api.post('/api/v1/users', registration({ balance: '10.00015' }));
      expect(odd.text).toContain('"balance":10.0002');
    });

    it('answers 409 for a UPI ID already registered, compared case-insensitively', async () => {
      const user = await t.api.registerUser();
      const response = await t.api.post('/api/v1/users', registration({ upiId: user.upiId.toUpperCase() }));
      expectProblem(response, 409, 'duplicate-upi-id');
      expect(await countUsers(user.upiId)).toBe(1);
    });

    it('registers exactly one of many concurrent registrations of one UPI ID', async () => {
      const upiId = uniqueUpiId('race');
      const responses = await Promise.all(
        Array.from({ length: 8 }, () => t.api.post('/api/v1/users', registration({ upiId }))),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      expect(await countUsers(upiId)).toBe(1);
    });

    it.each([
      ['name missing', { name: undefined }, 'name'],
      ['name blank', { name: '   ' }, 'name'],
      ['name over 100 characters', { name: 'n'.repeat(101) }, 'name'],
      ['name not a string', { name: 12 }, 'name'],
      ['upiId missing', { upiId: undefined }, 'upiId'],
      ['upiId blank', { upiId: '' }, 'upiId'],
      ['upiId without @', { upiId: 'asha.okbank' }, 'upiId'],
      ['upiId with 1 character before @', { upiId: 'a@okbank' }, 'upiId'],
      ['upiId with 65 characters before @', { upiId: `${'a'.repeat(65)}@okbank` }, 'upiId'],
      ['upiId with digits after @', { upiId: 'asha@ok1bank' }, 'upiId'],
      ['upiId with 33 letters after @', { upiId: `asha@${'b'.repeat(33)}` }, 'upiId'],
      ['upiId over 100 characters', { upiId: `${'a'.repeat(64)}@${'b'.repeat(32)}x.y` }, 'upiId'],
      ['phoneNumber missing', { phoneNumber: undefined }, 'phoneNumber'],
      ['phoneNumber with 9 digits', { phoneNumber: '987654321' }, 'phoneNumber'],
      ['phoneNumber with 11 digits', { phoneNumber: '98765432101' }, 'phoneNumber'],
      ['phoneNumber with letters', { phoneNumber: '98765abcde' }, 'phoneNumber'],
      ['phoneNumber as a number', { phoneNumber: 9876543210 }, 'phoneNumber'],
      ['balance missing', { balance: undefined }, 'balance'],
      ['balance negative', { balance: -1 }, 'balance'],
      ['balance negative zero', { balance: '-0' }, 'balance'],
      ['balance not numeric', { balance: 'lots' }, 'balance'],
      ['balance NaN', { balance: 'NaN' }, 'balance'],
      ['balance beyond numeric(19,4)', { balance: '1000000000000000' }, 'balance'],
      ['balance as a boolean', { balance: true }, 'balance'],
    ])('answers 422 and creates nothing when %s', async (_case, overrides, field) => {
      const body = registration(overrides);
      const response = await t.api.post('/api/v1/users', body);
      expectProblem(response, 422);
      expect(response.body.errors).toEqual(expect.objectContaining({ [field]: expect.any(String) }));
      if (typeof body.upiId === 'string' && body.upiId.length > 0) expect(await countUsers(body.upiId)).toBe(0);
    });

    it('names the most basic broken rule of a field', async () => {
      const response = await t.api.post('/api/v1/users', registration({ name: undefined }));
      expectProblem(response, 422);
      expect(response.body.errors.name).toBe('name must be a string');
    });

    it('reports every invalid field at once', async () => {
      const response = await t.api.post('/api/v1/users', { name: '', upiId: 'x', phoneNumber: '1', balance: -5 });
      expectProblem(response, 422);
      expect(Object.keys(response.body.errors).sort()).toEqual(['balance', 'name', 'phoneNumber', 'upiId']);
    });

    it('answers 400 for malformed JSON and creates nothing', async () => {
      const response = await t.api.request('POST', '/api/v1/users', { rawBody: '{"name": "Asha", "upiId": ' });
      expectProblem(response, 400, 'invalid-request');
    });

    it('answers 400 for a body that is not a JSON object', async () => {
      expectProblem(await t.api.request('POST', '/api/v1/users', { rawBody: '[1,2,3]' }), 400);
    });

    it('refuses a body that is not JSON', async () => {
      const response = await t.api.request('POST', '/api/v1/users', {
        rawBody: 'name=Asha',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectProblem(response, 415);
    });
  });

  describe('GET /api/v1/users (admin list)', () => {
    it('answers a page envelope of users, ascending by userId by default', async () => {
      await t.api.registerUser();
      const response = await t.api.get('/api/v1/users?size=5', admin.token);
      expect(response.status).toBe(200);
      const { content, ...envelope } = response.body;
      expect(envelope).toEqual({
        page: 0,
        size: 5,
        totalElements: expect.any(Number),
        totalPages: Math.ceil(envelope.totalElements / 5),
        first: true,
        last: envelope.totalElements <= 5,
      });
      expect(content.length).toBe(Math.min(5, envelope.totalElements));
      expect(Object.keys(content[0]).sort()).toEqual(
        ['balance', 'createdAt', 'name', 'phoneNumber', 'referenceId', 'updatedAt', 'upiId'].sort(),
      );
    });

    it('walks pages without overlap and sorts by an allowed column', async () => {
      await Promise.all([1, 2, 3].map(() => t.api.registerUser()));
      const first = await t.api.get('/api/v1/users?page=0&size=2&sortBy=upiId', admin.token);
      const second = await t.api.get('/api/v1/users?page=1&size=2&sortBy=upiId', admin.token);
      expect(second.body).toEqual(expect.objectContaining({ page: 1, first: false }));
      const ids = [...first.body.content, ...second.body.content].map((u: { upiId: string }) => u.upiId);
      expect(new Set(ids).size).toBe(4);
      expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });

    it('answers 401 without a token', async () => {
      expectProblem(await t.api.get('/api/v1/users'), 401);
    });

    it('answers 403 forbidden-operation to a user without ROLE_ADMIN', async () => {
      const user = await t.api.registerUser();
      expectProblem(await t.api.get('/api/v1/users', user.token), 403, 'forbidden-operation');
    });

    it.each([
      ['size=0', 'size'],
      ['size=101', 'size'],
      ['page=-1', 'page'],
      ['sortBy=password', 'sortBy'],
    ])('answers 422 for %s', async (query, field) => {
      const response = await t.api.get(`/api/v1/users?${query}`, admin.token);
      expectProblem(response, 422);
      expect(response.body.errors).toEqual({ [field]: expect.any(String) });
    });

    it.each(['page=abc', 'size=1.5'])('answers 400 for the type mismatch %s', async (query) => {
      expectProblem(await t.api.get(`/api/v1/users?${query}`, admin.token), 400);
    });
  });

  describe('GET /api/v1/users/balance/{amount} (admin)', () => {
    it('returns a plain array of exactly the users whose balance exceeds the amount', async () => {
      const below = await t.api.registerUser({ balance: '700000000000.0000' });
      const at = await t.api.registerUser({ balance: '700000000000.0001' });
      const above = await t.api.registerUser({ balance: '700000000000.0002' });
      const response = await t.api.get('/api/v1/users/balance/700000000000.0001', admin.token);
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
      const ids = response.body.map((u: { upiId: string }) => u.upiId);
      expect(ids).toContain(above.upiId);
      expect(ids).not.toContain(at.upiId);
      expect(ids).not.toContain(below.upiId);
      for (const user of response.body) expect(BigInt(String(user.balance).split('.')[0])).toBeGreaterThanOrEqual(7e11);
    });

    it.each(['abc', 'NaN', '12abc'])('answers 400 for the non-numeric amount %s', async (amount) => {
      expectProblem(await t.api.get(`/api/v1/users/balance/${amount}`, admin.token), 400);
    });

    it('answers 401 without a token', async () => {
      expectProblem(await t.api.get('/api/v1/users/balance/10'), 401);
    });

    it('answers 403 to a user without ROLE_ADMIN', async () => {
      const user = await t.api.registerUser();
      expectProblem(await t.api.get('/api/v1/users/balance/10', user.token), 403, 'forbidden-operation');
    });
  });

  describe('GET /api/v1/users/upi/{upiId}', () => {
    it('returns the account shape with userId and version', async () => {
      const user = await t.api.registerUser({ balance: 42 });
      const response = await t.api.get(`/api/v1/users/upi/${encodeURIComponent(user.upiId)}`, user.token);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        userId: expect.any(Number),
        name: user.name,
        upiId: user.upiId,
        phoneNumber: user.phoneNumber,
        balance: 42,
        version: expect.any(Number),
        createdAt: expect.stringMatching(ISO_UTC),
        updatedAt: expect.stringMatching(ISO_UTC),
      });
      expect(response.text).toContain('"balance":42.0000');
    });

    it('finds the caller regardless of case', async () => {
      const user = await t.api.registerUser();
      const response = await t.api.get(`/api/v1/users/upi/${user.upiId.toUpperCase()}`, user.token);
      expect(response.status).toBe(200);
      expect(response.body.upiId).toBe(user.upiId);
    });

    it("answers 403 for another user's UPI ID", async () => {
      const [me, other] = await Promise.all([t.api.registerUser(), t.api.registerUser()]);
      expectProblem(await t.api.get(`/api/v1/users/upi/${other.upiId}`, me.token), 403, 'forbidden-operation');
    });

    it('answers 404 for an unknown UPI ID', async () => {
      const me = await t.api.registerUser();
      expectProblem(await t.api.get(`/api/v1/users/upi/${uniqueUpiId('ghost')}`, me.token), 404, 'user-not-found');
    });

    it('answers 422 for a malformed UPI ID', async () => {
      const me = await t.api.registerUser();
      expectProblem(await t.api.get('/api/v1/users/upi/not-a-upi', me.token), 422);
    });

    it('answers 401 without a token', async () => {
      const user = await t.api.registerUser();
      expectProblem(await t.api.get(`/api/v1/users/upi/${user.upiId}`), 401);
    });
  });

  describe('GET /api/v1/users/{id}', () => {
    it("returns the caller's own profile", async () => {
      const user = await t.api.registerUser({ balance: '0.5' });
      const response = await t.api.get(`/api/v1/users/${user.referenceId}`, user.token);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(user.raw.body);
      expect(response.text).toContain('"balance":0.5000');
    });

    it("answers 403 for another user's profile, even to an admin", async () => {
      const other = await t.api.registerUser();
      expectProblem(await t.api.get(`/api/v1/users/${other.referenceId}`, admin.token), 403, 'forbidden-operation');
    });

    it('answers 404 for an unknown reference ID', async () => {
      const me = await t.api.registerUser();
      const response = await t.api.get('/api/v1/users/00000000-0000-4000-8000-000000000000', me.token);
      expectProblem(response, 404, 'user-not-found');
    });

    it('answers 400 for an id that is not a UUID', async () => {
      const me = await t.api.registerUser();
      expectProblem(await t.api.get('/api/v1/users/12345', me.token), 400, 'invalid-request');
    });

    it('answers 401 without a token', async () => {
      const user = await t.api.registerUser();
      expectProblem(await t.api.get(`/api/v1/users/${user.referenceId}`), 401);
    });
  });
});
