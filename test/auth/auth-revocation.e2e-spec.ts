import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { AuthPurgeJob } from '../../src/auth/auth-purge.job';
import { REVOCATION_MAX_STALENESS_MS, RevocationService } from '../../src/auth/revocation.service';
import { newTokenId } from '../../src/auth/token-id';
import { type ApiClient, newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { connectTestDatabase } from '../support/db';
import { craftToken, decodeClaims, nowSeconds } from '../support/jwt';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request per kind of protected route: a revoked token must be refused by each. */
function protectedCalls(api: ApiClient, user: RegisteredUser, token: string) {
  return [
    api.get(`/api/v1/users/${user.referenceId}`, token),
    api.get(`/api/v1/users/${user.referenceId}/ledger`, token),
    api.get(`/api/v1/users/upi/${user.upiId}`, token),
    api.get(`/api/v1/transactions/user/${user.upiId}`, token),
    api.get(`/api/v1/transactions/${randomUUID()}`, token),
    api.transfer({ upiId: user.upiId, token }, 'someone@okbank', 1),
    api.get('/api/v1/users', token),
    api.request('POST', '/api/v1/auth/logout', { token }),
  ];
}

function claimsFor(user: RegisteredUser, extra: Record<string, unknown> = {}) {
  const iat = nowSeconds();
  return { sub: user.upiId, referenceId: user.referenceId, roles: ['ROLE_USER'], iat, exp: iat + 600, ...extra };
}

describe('POST /api/v1/auth/logout', () => {
  let t: TestApp;
  let db: Client;
  const adminUpiId = uniqueUpiId('admin');
  beforeAll(async () => {
    t = await startTestApp({ ADMIN_UPI_IDS: adminUpiId });
    db = await connectTestDatabase();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  it('revokes the presented token everywhere while another token of the same user still works', async () => {
    const user = await t.api.registerUser();
    const other = await t.api.login(user.upiId);
    const logout = await t.api.request('POST', '/api/v1/auth/logout', { token: user.token });
    expect(logout.status).toBe(204);
    expect(logout.text).toBe('');

    for (const response of await Promise.all(protectedCalls(t.api, user, user.token))) {
      expectProblem(response, 401, 'unauthorized');
      expect(response.body.detail).toMatch(/revoked/);
    }
    expect((await t.api.get(`/api/v1/users/${user.referenceId}`, other)).status).toBe(200);
    const stored = await db.query('SELECT upi_id, expires_at FROM revoked_tokens WHERE jti = $1', [
      decodeClaims(user.token).jti,
    ]);
    expect(stored.rows).toEqual([
      { upi_id: user.upiId.toLowerCase(), expires_at: new Date((decodeClaims(user.token).exp as number) * 1000) },
    ]);
  });

  it('with all=true revokes every token of the user, and a later login works', async () => {
    const user = await t.api.registerUser();
    const second = await t.api.login(user.upiId);
    const bystander = await t.api.registerUser();
    expect((await t.api.request('POST', '/api/v1/auth/logout?all=true', { token: second })).status).toBe(204);
    for (const token of [user.token, second]) {
      expectProblem(await t.api.get(`/api/v1/users/${user.referenceId}`, token), 401, 'unauthorized');
    }
    const fresh = await t.api.login(user.upiId);
    expect((await t.api.get(`/api/v1/users/${user.referenceId}`, fresh)).status).toBe(200);
    expect((await t.api.get(`/api/v1/users/${bystander.referenceId}`, bystander.token)).status).toBe(200);
  });

  it('answers 422 for an all value other than true or false, and revokes nothing', async () => {
    const user = await t.api.registerUser();
    const response = await t.api.request('POST', '/api/v1/auth/logout?all=yes', { token: user.token });
    expectProblem(response, 422, 'validation-failed');
    expect(response.body.errors).toEqual({ all: expect.any(String) });
    expect((await t.api.get(`/api/v1/users/${user.referenceId}`, user.token)).status).toBe(200);
  });

  it('answers 401 without a token', async () => {
    expectProblem(await t.api.request('POST', '/api/v1/auth/logout'), 401, 'unauthorized');
  });

  it('refuses a correctly signed token whose jti is revoked in the database (another instance logged it out)', async () => {
    const user = await t.api.registerUser();
    const jti = newTokenId();
    const token = craftToken(claimsFor(user, { jti }));
    expect((await t.api.get(`/api/v1/users/${user.referenceId}`, token)).status).toBe(200);
    await db.query(
      `INSERT INTO revoked_tokens (jti, upi_id, expires_at) VALUES ($1, lower($2), now() + interval '10 minutes')`,
      [jti, user.upiId],
    );
    let response = await t.api.get(`/api/v1/users/${user.referenceId}`, token);
    for (let waited = 0; response.status === 200 && waited < 15_000; waited += 250) {
      await sleep(250);
      response = await t.api.get(`/api/v1/users/${user.referenceId}`, token);
    }
    expectProblem(response, 401, 'unauthorized');
  });

  it.each([
    ['without exp', { exp: undefined }],
    ['without jti', { jti: undefined }],
    ['with a non-numeric exp', { exp: String(nowSeconds() + 600) }],
  ])('answers 401 for a correctly signed token %s', async (_case, override) => {
    const user = await t.api.registerUser();
    const claims = JSON.parse(JSON.stringify(claimsFor(user, { jti: newTokenId(), ...override })));
    const response = await t.api.get(`/api/v1/users/${user.referenceId}`, craftToken(claims));
    expectProblem(response, 401, 'unauthorized');
  });

  it('keeps revoked tokens out of public routes too: health shows no details to them', async () => {
    const admin = await t.api.registerUser({ upiId: adminUpiId });
    expect((await t.api.get('/actuator/health', admin.token)).body.components).toBeDefined();
    await t.api.request('POST', '/api/v1/auth/logout', { token: admin.token });
    const health = await t.api.get('/actuator/health', admin.token);
    expect(health.status).toBe(200);
    expect(health.body.components).toBeUndefined();
  });

  it('purges expired revocations in the scheduled job and keeps live ones', async () => {
    const expired = randomUUID();
    const live = randomUUID();
    await db.query(
      `INSERT INTO revoked_tokens (jti, upi_id, expires_at) VALUES
         ($1, 'old@okbank', now() - interval '1 minute'), ($2, 'new@okbank', now() + interval '1 hour')`,
      [expired, live],
    );
    await db.query(
      `INSERT INTO user_token_revocations (upi_id, revoked_before, expires_at)
       VALUES ($1, now() - interval '2 hours', now() - interval '1 hour')`,
      [`purged.${randomUUID()}@okbank`],
    );
    await t.app.get(AuthPurgeJob).run();
    const rows = await db.query('SELECT jti FROM revoked_tokens WHERE jti = ANY($1)', [[expired, live]]);
    expect(rows.rows).toEqual([{ jti: live }]);
    const users = await db.query('SELECT count(*)::int AS n FROM user_token_revocations WHERE expires_at < now()');
    expect(users.rows[0].n).toBe(0);
  });
});

describe('revocation across instances', () => {
  it('takes effect on another instance within 5 s: never a 200 after that, and a 401 soon', async () => {
    const a = await startTestApp();
    const b = await startTestApp();
    try {
      const user = await a.api.registerUser();
      const path = `/api/v1/users/${user.referenceId}`;
      expect((await b.api.get(path, user.token)).status).toBe(200);
      expect((await a.api.request('POST', '/api/v1/auth/logout', { token: user.token })).status).toBe(204);
      const loggedOutAt = Date.now();

      // Once the bound has passed, B refuses the token however loaded the machine is: with a
      // revocation list older than 5 s it asks PostgreSQL rather than trust the list.
      let status = 200;
      while (status !== 401 && Date.now() - loggedOutAt < 20_000) {
        const response = await b.api.get(path, user.token);
        status = response.status;
        if (Date.now() - loggedOutAt > 5000) expect(status).not.toBe(200);
        if (status !== 401) await sleep(100);
      }
      expect(status).toBe(401);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('asks PostgreSQL once its copy is older than 5 s (refreshes stopped)', async () => {
    const t = await startTestApp();
    const db = await connectTestDatabase();
    try {
      const user = await t.api.registerUser();
      t.app.get(RevocationService).onApplicationShutdown();
      const stoppedAt = Date.now();
      await db.query(
        `INSERT INTO revoked_tokens (jti, upi_id, expires_at) VALUES ($1, lower($2), now() + interval '10 minutes')`,
        [decodeClaims(user.token).jti, user.upiId],
      );
      await sleep(Math.max(0, REVOCATION_MAX_STALENESS_MS + 500 - (Date.now() - stoppedAt)));
      expectProblem(await t.api.get(`/api/v1/users/${user.referenceId}`, user.token), 401, 'unauthorized');
    } finally {
      await db.end();
      await t.close();
    }
  });

  it('log out everywhere reaches another instance too', async () => {
    const a = await startTestApp();
    const b = await startTestApp();
    try {
      const user = await a.api.registerUser();
      const onB = await b.api.login(user.upiId);
      expect((await a.api.request('POST', '/api/v1/auth/logout?all=true', { token: user.token })).status).toBe(204);
      let status = 200;
      for (let waited = 0; status === 200 && waited < 20_000; waited += 200) {
        status = (await b.api.get(`/api/v1/users/${user.referenceId}`, onB)).status;
        if (status === 200) await sleep(200);
      }
      expect(status).toBe(401);
      const fresh = await b.api.login(user.upiId);
      expect((await b.api.get(`/api/v1/users/${user.referenceId}`, fresh)).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('does not touch the transfer path of other users', async () => {
    const t = await startTestApp();
    try {
      const sender = await t.api.registerUser();
      const receiver = await t.api.registerUser();
      await t.api.request('POST', '/api/v1/auth/logout?all=true', { token: receiver.token });
      const sent = await t.api.transfer(sender, receiver.upiId, 5, { key: newIdempotencyKey() });
      expect(sent.status).toBe(201);
    } finally {
      await t.close();
    }
  });
});
