import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { ConfigError, loadConfig } from '../../src/config/app-config';
import { GRANTS_MAX_STALENESS_MS } from '../../src/auth/role-grants.service';
import { randomPhone, uniqueUpiId } from '../support/api-client';
import { connectTestDatabase, testUrl } from '../support/db';
import { craftToken, decodeClaims, nowSeconds } from '../support/jwt';
import { expectProblem } from '../support/problem';
import { withTempDir } from '../support/temp-dir';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

// The documented bound (docs/security.md, "Admin grants": the copy is refreshed every second, never trusted past this), plus a request.
const BOUND_MS = GRANTS_MAX_STALENESS_MS + 2000;

/** Runs a built operator CLI; both streams captured, asserted by the tests, never relayed to the test output. */
function runCli(script: 'admin' | 'audit', args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(__dirname, `../../dist/scripts/${script}/${script}.js`), ...args], {
    env: { ...process.env, DATABASE_URL: testUrl(), ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Issue 18, item 2: ROLE_ADMIN is granted on an existing account and checked on every request. */
describe('admin grants', () => {
  let db: Client;
  beforeAll(async () => {
    db = await connectTestDatabase();
  });
  afterAll(() => db.end());

  const listUsers = (t: TestApp, token: string) => t.api.get('/api/v1/users?size=1', token);
  const grantRows = async (upiId: string) =>
    (
      await db.query(
        `SELECT g.role, g.granted_by FROM role_grants g JOIN users u ON u.id = g.user_id WHERE u.upi_id = $1`,
        [upiId],
      )
    ).rows;
  const grantEvents = async (upiId: string) =>
    (
      await db.query(
        `SELECT e.action, e.actor FROM role_grant_events e JOIN users u ON u.id = e.user_id
         WHERE u.upi_id = $1 ORDER BY e.id`,
        [upiId],
      )
    ).rows;

  describe('the ADMIN_UPI_IDS bootstrap', () => {
    it('with ADMIN_BOOTSTRAP=at-boot, a listed ID registered after start-up gets no admin role', async () => {
      const listed = uniqueUpiId('late-admin');
      const t = await startTestApp({ ADMIN_UPI_IDS: listed.toUpperCase(), ADMIN_BOOTSTRAP: 'at-boot' });
      try {
        const squatter = await t.api.registerUser({ upiId: listed });
        expect(decodeClaims(squatter.token).roles).toEqual(['ROLE_USER']);
        expectProblem(await listUsers(t, squatter.token), 403, 'forbidden-operation');
        expect(await grantRows(listed)).toEqual([]);
      } finally {
        await t.close();
      }
    });

    it('with ADMIN_BOOTSTRAP=at-boot, a listed ID registered before start-up is admin', async () => {
      const listed = uniqueUpiId('boot-admin');
      const first = await startTestApp();
      await first.api.registerUser({ upiId: listed, balance: 0 });
      await first.close();
      const t = await startTestApp({ ADMIN_UPI_IDS: listed, ADMIN_BOOTSTRAP: 'at-boot' });
      try {
        const token = await t.api.login(listed);
        expect(decodeClaims(token).roles).toEqual(['ROLE_USER', 'ROLE_ADMIN']);
        expect((await listUsers(t, token)).status).toBe(200);
      } finally {
        await t.close();
      }
    });

    it('under the defaults keeps the spec behaviour: a listed ID is admin whenever it registers', async () => {
      const listed = uniqueUpiId('spec-admin');
      const t = await startTestApp({ ADMIN_UPI_IDS: listed });
      try {
        const admin = await t.api.registerUser({ upiId: listed, balance: 0 });
        expect((await listUsers(t, admin.token)).status).toBe(200);
      } finally {
        await t.close();
      }
    });

    it('an ID taken off the list loses the role with the restart, even on a token issued before', async () => {
      const listed = uniqueUpiId('dropped-admin');
      const before = await startTestApp({ ADMIN_UPI_IDS: listed });
      const admin = await before.api.registerUser({ upiId: listed, balance: 0 });
      expect((await listUsers(before, admin.token)).status).toBe(200);
      await before.close();
      const after = await startTestApp();
      try {
        expectProblem(await listUsers(after, admin.token), 403, 'forbidden-operation');
      } finally {
        await after.close();
      }
    });

    it('is refused at boot under NODE_ENV=production, pointing to the grant command', () => {
      const boot = () =>
        loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), ADMIN_UPI_IDS: 'root@okbank' });
      expect(boot).toThrow(ConfigError);
      expect(boot).toThrow(/ADMIN_UPI_IDS .*npm run admin -- grant <upiId>/);
    });
  });

  describe('POST /api/v1/admin/users/{referenceId}/roles and npm run admin', () => {
    let t: TestApp;
    let adminToken: string;
    const adminUpiId = uniqueUpiId('granting-admin');

    beforeAll(async () => {
      t = await startTestApp({ ADMIN_UPI_IDS: adminUpiId });
      adminToken = (await t.api.registerUser({ upiId: adminUpiId, balance: 0 })).token;
    });
    afterAll(() => t.close());

    const setRole = (referenceId: string, body: unknown, token = adminToken) =>
      t.api.post(`/api/v1/admin/users/${referenceId}/roles`, body, { token });

    it('grants the role on an existing account (recorded with who and when) and revokes it from live tokens', async () => {
      const user = await t.api.registerUser();
      expectProblem(await listUsers(t, user.token), 403, 'forbidden-operation');

      const granted = await setRole(user.referenceId, { role: 'ROLE_ADMIN', granted: true });
      expect(granted.status).toBe(200);
      expect(granted.body).toEqual({
        referenceId: user.referenceId,
        upiId: user.upiId,
        roles: ['ROLE_USER', 'ROLE_ADMIN'],
        outcome: 'granted',
      });
      expect(granted.headers.get('cache-control')).toBe('no-store');
      expect(await grantRows(user.upiId)).toEqual([{ role: 'ROLE_ADMIN', granted_by: adminUpiId.toLowerCase() }]);
      // The token issued before the grant carries only ROLE_USER; the grant counts all the same.
      expect((await listUsers(t, user.token)).status).toBe(200);

      const revoked = await setRole(user.referenceId, { role: 'ROLE_ADMIN', granted: false });
      expect(revoked.status).toBe(200);
      expect(revoked.body.roles).toEqual(['ROLE_USER']);
      expectProblem(await listUsers(t, user.token), 403, 'forbidden-operation');
      expect(await grantRows(user.upiId)).toEqual([]);
      expect(await grantEvents(user.upiId)).toEqual([
        { action: 'GRANT_ROLE', actor: adminUpiId.toLowerCase() },
        { action: 'REVOKE_ROLE', actor: adminUpiId.toLowerCase() },
      ]);
    });

    it('refuses non-admins, unknown accounts and bad bodies, changing nothing', async () => {
      const user = await t.api.registerUser();
      const other = await t.api.registerUser();
      expectProblem(await setRole(other.referenceId, { role: 'ROLE_ADMIN', granted: true }, user.token), 403);
      expectProblem(await setRole(user.referenceId, { role: 'ROLE_ADMIN', granted: true }, user.token), 403);
      expectProblem(
        await setRole('00000000-0000-4000-8000-000000000000', { role: 'ROLE_ADMIN', granted: true }),
        404,
        'user-not-found',
      );
      expectProblem(await setRole(user.referenceId, { role: 'ROLE_ROOT', granted: true }), 422, 'validation-failed');
      expectProblem(await setRole(user.referenceId, { role: 'ROLE_ADMIN', granted: 'yes' }), 422, 'validation-failed');
      expect(await grantRows(user.upiId)).toEqual([]);
      expect(await grantRows(other.upiId)).toEqual([]);
    });

    it('npm run admin -- grant / revoke acts on an existing account; other instances see it within the stated bound', async () => {
      const user = await t.api.registerUser();
      // Both streams captured: what the CLI says is asserted here, never relayed to the test output.
      const run = (...args: string[]) => runCli('admin', args);
      const cli = (...args: string[]) => {
        const result = run(...args);
        expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
        return result.stdout;
      };
      expect(cli('grant', user.upiId.toUpperCase())).toContain('ROLE_ADMIN granted');
      expect(await grantRows(user.upiId)).toEqual([{ role: 'ROLE_ADMIN', granted_by: expect.stringMatching(/^cli:/) }]);
      await waitUntil(async () => (await listUsers(t, user.token)).status === 200, 'the grant', BOUND_MS);

      expect(cli('revoke', user.upiId)).toContain('ROLE_ADMIN revoked');
      await waitUntil(async () => (await listUsers(t, user.token)).status === 403, 'the revocation', BOUND_MS);

      const nobody = uniqueUpiId('nobody');
      const refused = run('grant', nobody);
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain(`No registered user with UPI ID ${nobody}`);
      expect(refused.stdout).toBe('');
    });

    it('--help prints the usage and exits 0; an unknown option or a bad command is bad usage (2)', () => {
      const help = runCli('admin', ['--help']);
      expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: '' });
      expect(help.stdout).toMatch(/^usage: npm run admin -- grant\|revoke\|unlock <upiId>/);
      expect(help.stdout).toContain('--database-url-file <path>');
      for (const args of [['--verbose', 'grant', 'a@okbank'], ['promote', 'a@okbank'], []]) {
        const wrong = runCli('admin', args);
        expect({ args, status: wrong.status, stdout: wrong.stdout }).toEqual({ args, status: 2, stdout: '' });
        expect(wrong.stderr).toContain('usage: npm run admin');
      }
    });

    it('takes no password on the command line: --database-url with one is refused, the file and the environment work', async () => {
      const user = await t.api.registerUser();
      const withPassword = new URL(testUrl());
      expect(withPassword.password).not.toBe('');
      for (const url of [withPassword.href, `${withPassword.origin}${withPassword.pathname}?password=x`]) {
        const refused = runCli('admin', ['grant', user.upiId, '--database-url', url], { DATABASE_URL: '' });
        expect({ status: refused.status, stdout: refused.stdout }).toEqual({ status: 2, stdout: '' });
        expect(refused.stderr).toContain('--database-url must not carry a password');
        expect(refused.stderr).not.toContain(withPassword.password);
      }
      const audit = runCli('audit', ['--database-url', withPassword.href]);
      expect({ status: audit.status, stdout: audit.stdout }).toEqual({ status: 2, stdout: '' });
      expect(audit.stderr).toContain('--database-url must not carry a password');
      expect(await grantRows(user.upiId)).toEqual([]);

      // Without its password the URL is fine: libpq's PGPASSWORD (or ~/.pgpass) supplies it.
      const password = decodeURIComponent(withPassword.password);
      const bare = new URL(withPassword.href);
      bare.password = '';
      const granted = runCli('admin', ['grant', user.upiId, '--database-url', bare.href], {
        DATABASE_URL: '',
        PGPASSWORD: password,
      });
      expect({ status: granted.status, stderr: granted.stderr }).toEqual({ status: 0, stderr: '' });
      expect(granted.stdout).toContain('ROLE_ADMIN granted');

      await withTempDir('admin-url-file', async (dir) => {
        const file = join(dir, 'database-url');
        writeFileSync(file, `${testUrl()}\n`, { mode: 0o600 });
        const revoked = runCli('admin', ['revoke', user.upiId, '--database-url-file', file], { DATABASE_URL: '' });
        expect({ status: revoked.status, stderr: revoked.stderr }).toEqual({ status: 0, stderr: '' });
        expect(revoked.stdout).toContain('ROLE_ADMIN revoked');
      });
      expect(await grantRows(user.upiId)).toEqual([]);
    });
  });

  describe('npm run admin beside a service running on the same DATA_DIR', () => {
    it("grants on the service's own embedded database; the user is admin within the bound and on the next token", async () => {
      await withTempDir(
        'admin-beside-service',
        async (dataDir) => {
          const embedded = { DATABASE_URL: '', DATA_DIR: dataDir };
          const service = await startTestApp(embedded);
          try {
            const user = await service.api.registerUser({ balance: 0 });
            expectProblem(await listUsers(service, user.token), 403, 'forbidden-operation');

            const grant = runCli('admin', ['grant', user.upiId], embedded);
            expect({ status: grant.status, stderr: grant.stderr }).toEqual({ status: 0, stderr: '' });
            expect(grant.stdout).toContain(`ROLE_ADMIN granted for ${user.upiId.toLowerCase()}`);
            await waitUntil(async () => (await listUsers(service, user.token)).status === 200, 'the grant', BOUND_MS);
            const next = await service.api.login(user.upiId);
            expect(decodeClaims(next).roles).toEqual(['ROLE_USER', 'ROLE_ADMIN']);

            // The audit shares the running database the same way, and the service keeps serving.
            const audit = runCli('audit', [], embedded);
            expect({ status: audit.status, stderr: audit.stderr }).toEqual({ status: 0, stderr: '' });
            expect(JSON.parse(audit.stdout).ok).toBe(true);
            expect((await service.api.registerUser({ balance: 0 })).upiId).toEqual(expect.any(String));
          } finally {
            await service.close();
          }
        },
        { forPostgres: true },
      );
    }, 120_000);
  });

  describe('token lifetime', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ JWT_EXPIRATION_MS: '3600000' });
    });
    afterAll(() => t.close());

    it('refuses a token whose exp is further than JWT_EXPIRATION_MS after its iat, however well signed', async () => {
      const upiId = uniqueUpiId('long-lived');
      const registered = await t.api.post('/api/v1/users', {
        name: 'Long Lived',
        upiId,
        phoneNumber: randomPhone(),
        balance: 0,
      });
      const iat = nowSeconds();
      const claims = {
        sub: upiId,
        referenceId: registered.body.referenceId,
        roles: ['ROLE_USER'],
        jti: '0190b7a0-0000-7000-8000-000000000000',
        iat,
      };
      const path = `/api/v1/users/${registered.body.referenceId}`;
      expect((await t.api.get(path, craftToken({ ...claims, exp: iat + 3600 }))).status).toBe(200);
      const tenYears = craftToken({ ...claims, exp: iat + 10 * 365 * 86_400 });
      expectProblem(await t.api.get(path, tenYears), 401, 'unauthorized');
    });
  });
});
