import { createHmac } from 'node:crypto';
import { uniqueUpiId } from '../support/api-client';
import { craftToken, decodeClaims, decodeHeader, nowSeconds, TEST_JWT_SECRET } from '../support/jwt';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

describe('POST /api/v1/auth/login', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('issues a bearer token for a registered UPI ID', async () => {
    const user = await t.api.registerUser();
    const response = await t.api.post('/api/v1/auth/login', { upiId: user.upiId });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 3600,
      upiId: user.upiId,
      referenceId: user.referenceId,
    });
  });

  // The PIN-login contract adds `jti` to the spec's claims on every token (what logout revokes).
  it('signs exactly the spec claims plus a jti with HS256 and a 3600 s lifetime', async () => {
    const user = await t.api.registerUser();
    const token = await t.api.login(user.upiId);
    expect(decodeHeader(token)).toEqual(expect.objectContaining({ alg: 'HS256' }));
    const claims = decodeClaims(token);
    expect(Object.keys(claims).sort()).toEqual(['exp', 'iat', 'jti', 'referenceId', 'roles', 'sub']);
    expect(claims.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(decodeClaims(await t.api.login(user.upiId)).jti).not.toBe(claims.jti);
    expect(claims).toEqual(
      expect.objectContaining({ sub: user.upiId, referenceId: user.referenceId, roles: ['ROLE_USER'] }),
    );
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
  });

  it('logs in case-insensitively and reports the registered spelling', async () => {
    const user = await t.api.registerUser({ upiId: uniqueUpiId('Mixed.Case') });
    const response = await t.api.post('/api/v1/auth/login', { upiId: user.upiId.toUpperCase() });
    expect(response.status).toBe(200);
    expect(response.body.upiId).toBe(user.upiId);
  });

  it('answers 401 for a well-formed UPI ID that is not registered', async () => {
    expectProblem(await t.api.post('/api/v1/auth/login', { upiId: uniqueUpiId('nobody') }), 401);
  });

  it.each([
    ['a malformed UPI ID', { upiId: 'not-a-upi' }],
    ['a blank UPI ID', { upiId: '   ' }],
    ['a missing UPI ID', {}],
    ['a UPI ID over 100 characters', { upiId: `${'a'.repeat(64)}@${'b'.repeat(40)}` }],
    ['a non-string UPI ID', { upiId: 42 }],
  ])('answers 422 with the errors map for %s', async (_case, body) => {
    const response = await t.api.post('/api/v1/auth/login', body);
    expectProblem(response, 422);
    expect(response.body.errors).toEqual({ upiId: expect.any(String) });
  });

  it('answers 400 for malformed JSON', async () => {
    expectProblem(await t.api.request('POST', '/api/v1/auth/login', { rawBody: '{"upiId": ' }), 400, 'invalid-request');
  });

  it('honours JWT_EXPIRATION_MS in expiresIn and exp', async () => {
    const shortLived = await startTestApp({ JWT_EXPIRATION_MS: '120000' });
    try {
      const user = await shortLived.api.registerUser();
      const response = await shortLived.api.post('/api/v1/auth/login', { upiId: user.upiId });
      expect(response.body.expiresIn).toBe(120);
      const claims = decodeClaims(response.body.accessToken);
      expect((claims.exp as number) - (claims.iat as number)).toBe(120);
    } finally {
      await shortLived.close();
    }
  });
});

describe('bearer tokens on protected routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function profileWith(authorization: string | undefined) {
    const user = await t.api.registerUser();
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    return { user, response: await t.api.request('GET', `/api/v1/users/${user.referenceId}`, { headers }) };
  }

  function claimsFor(user: { upiId: string; referenceId: string }, lifetime = 3600) {
    const iat = nowSeconds();
    return { sub: user.upiId, referenceId: user.referenceId, roles: ['ROLE_USER'], iat, exp: iat + lifetime };
  }

  it('accepts a valid token', async () => {
    const user = await t.api.registerUser();
    expect((await t.api.get(`/api/v1/users/${user.referenceId}`, user.token)).status).toBe(200);
  });

  it('answers 401 without a token', async () => {
    expectProblem((await profileWith(undefined)).response, 401);
  });

  it('answers 401 for a malformed Authorization header', async () => {
    expectProblem((await profileWith('Bearer not.a-jwt')).response, 401);
    expectProblem((await profileWith('Basic dXNlcjpwYXNz')).response, 401);
  });

  it('answers 401 for an expired token', async () => {
    const user = await t.api.registerUser();
    const expired = craftToken({ ...claimsFor(user), iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 });
    const response = await t.api.get(`/api/v1/users/${user.referenceId}`, expired);
    expectProblem(response, 401);
    expect(response.body.detail).toMatch(/expired/);
  });

  it('answers 401 for a token that expires after it was accepted', async () => {
    const user = await t.api.registerUser();
    const exp = nowSeconds() + 2;
    const shortLived = craftToken({ ...claimsFor(user), jti: 'short-lived', exp });
    expect((await t.api.get(`/api/v1/users/${user.referenceId}`, shortLived)).status).toBe(200);
    expect((await t.api.get(`/api/v1/users/${user.referenceId}`, shortLived)).status).toBe(200);
    // Already past on a slow machine: a negative delay would make Node warn (TimeoutNegativeWarning).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now() + 50)));
    const response = await t.api.get(`/api/v1/users/${user.referenceId}`, shortLived);
    expectProblem(response, 401);
    expect(response.body.detail).toMatch(/expired/);
  });

  it('answers 401 for a token signed with another secret', async () => {
    const user = await t.api.registerUser();
    const forged = craftToken(claimsFor(user), { secret: 'another-secret-that-is-also-32-bytes-long' });
    expectProblem(await t.api.get(`/api/v1/users/${user.referenceId}`, forged), 401);
  });

  it('answers 401 for alg none, signed or not', async () => {
    const user = await t.api.registerUser();
    const header = { alg: 'none', typ: 'JWT' };
    expectProblem(await t.api.get(`/api/v1/users/${user.referenceId}`, craftToken(claimsFor(user), { header })), 401);
    const unsigned = craftToken(claimsFor(user), { header, unsigned: true });
    expectProblem(await t.api.get(`/api/v1/users/${user.referenceId}`, unsigned), 401);
  });

  it('answers 401 for another HMAC algorithm with the right secret', async () => {
    const user = await t.api.registerUser();
    const header = Buffer.from(JSON.stringify({ alg: 'HS512', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify(claimsFor(user))).toString('base64url');
    const signature = createHmac('sha512', TEST_JWT_SECRET).update(`${header}.${payload}`).digest('base64url');
    expectProblem(await t.api.get(`/api/v1/users/${user.referenceId}`, `${header}.${payload}.${signature}`), 401);
  });

  it('answers 401 for a correctly signed token without the required claims', async () => {
    const user = await t.api.registerUser();
    const { roles: _roles, ...withoutRoles } = claimsFor(user);
    expectProblem(await t.api.get(`/api/v1/users/${user.referenceId}`, craftToken(withoutRoles)), 401);
  });

  it('answers 401 for a tampered payload', async () => {
    const user = await t.api.registerUser();
    const [header, , signature] = user.token.split('.');
    const payload = Buffer.from(JSON.stringify({ ...claimsFor(user), roles: ['ROLE_USER', 'ROLE_ADMIN'] })).toString(
      'base64url',
    );
    expectProblem(await t.api.get('/api/v1/users', `${header}.${payload}.${signature}`), 401);
  });
});

describe('ADMIN_UPI_IDS grants ROLE_ADMIN', () => {
  let t: TestApp;
  const adminUpiId = uniqueUpiId('Admin');
  beforeAll(async () => {
    t = await startTestApp({ ADMIN_UPI_IDS: `someone@else, ${adminUpiId.toUpperCase()}` });
  });
  afterAll(() => t.close());

  it('issues ROLE_USER and ROLE_ADMIN to a listed UPI ID, compared case-insensitively', async () => {
    const admin = await t.api.registerUser({ upiId: adminUpiId });
    expect(decodeClaims(admin.token).roles).toEqual(['ROLE_USER', 'ROLE_ADMIN']);
    expect((await t.api.get('/api/v1/users', admin.token)).status).toBe(200);
  });

  it('issues only ROLE_USER to everyone else', async () => {
    const user = await t.api.registerUser();
    expect(decodeClaims(user.token).roles).toEqual(['ROLE_USER']);
    expectProblem(await t.api.get('/api/v1/users', user.token), 403, 'forbidden-operation');
  });
});
