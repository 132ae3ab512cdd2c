import { spawnSync } from 'node:child_process';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { startTestApp } from '../support/test-app';

/** Production, with the privilege check on (the harness turns it off for its own superuser). */
const PRODUCTION = { NODE_ENV: 'production', DATABASE_ALLOW_PRIVILEGED: 'false' };

const roleUrl = (name: 'TEST_OWNER_DATABASE_URL' | 'TEST_SERVICE_DATABASE_URL') => {
  const url = process.env[name];
  if (!url) throw new Error(`${name} is not set: these tests need the embedded test database's roles (global setup)`);
  return url;
};

/** An external DATABASE_URL with more power than the service needs: warned about, refused in production. */
describe('privileges of an external DATABASE_URL', () => {
  let warnings: jest.SpyInstance;
  beforeEach(() => (warnings = jest.spyOn(Logger.prototype, 'warn')));
  afterEach(() => warnings.mockRestore());
  const warned = () => warnings.mock.calls.map((call) => String(call[0])).filter((m) => m.startsWith('DATABASE_URL'));

  it('refuses a superuser under NODE_ENV=production, naming the fix', async () => {
    await expect(startTestApp(PRODUCTION)).rejects.toThrow(
      /^DATABASE_URL: role "postgres" is a superuser.*docs\/database-roles\.md.*DATABASE_ALLOW_PRIVILEGED=true/,
    );
  });

  it('refuses the tables owner under NODE_ENV=production', async () => {
    await expect(startTestApp({ ...PRODUCTION, DATABASE_URL: roleUrl('TEST_OWNER_DATABASE_URL') })).rejects.toThrow(
      /^DATABASE_URL: role "payments_owner" owns \(or inherits the owner of\) tables /,
    );
  });

  it('starts a superuser under production with DATABASE_ALLOW_PRIVILEGED=true, and warns', async () => {
    const t = await startTestApp({ NODE_ENV: 'production', DATABASE_ALLOW_PRIVILEGED: 'true' });
    await t.close();
    expect(warned()).toEqual([expect.stringMatching(/role "postgres" is a superuser/)]);
  });

  it('only warns outside production', async () => {
    const t = await startTestApp({ DATABASE_ALLOW_PRIVILEGED: 'false' });
    await t.close();
    expect(warned()).toEqual([expect.stringMatching(/role "postgres" is a superuser/)]);
  });

  it('starts the service role in production without a word, and it serves', async () => {
    const t = await startTestApp({ ...PRODUCTION, DATABASE_URL: roleUrl('TEST_SERVICE_DATABASE_URL') });
    try {
      expect((await t.api.get('/actuator/health/readiness')).status).toBe(200);
      expect(warned()).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

/** DATA_DIR and the secrets in it: another local user must not be able to replace them. */
describe('DATA_DIR that other users can write', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeTempDir));
  const start = (dataDir: string, env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'src', 'main.js')], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...env },
    });
  const failureLine = (result: ReturnType<typeof start>) => {
    const lines = (result.stdout + result.stderr).trim().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]).msg as string;
  };

  it('refuses a DATA_DIR writable by others (chmod 777) at start, with one line saying how to fix it', () => {
    const dataDir = makeTempDir('payments-open-dir');
    dirs.push(dataDir);
    chmodSync(dataDir, 0o777);
    const result = start(dataDir);
    expect(result.status).toBe(1);
    expect(failureLine(result)).toBe(
      `Payment service failed to start: Invalid configuration:\n  - DATA_DIR: ${dataDir} is writable by other users ` +
        `(mode 777), who could replace its secrets; run: chmod go-w ${dataDir}`,
    );
  });

  it('refuses a jwt-secret file writable by others, and does not use it', () => {
    const dataDir = makeTempDir('payments-open-secret');
    dirs.push(dataDir);
    const secretFile = join(dataDir, 'jwt-secret');
    writeFileSync(secretFile, 'swapped-by-someone-else-swapped-by-someone-else\n', { mode: 0o666 });
    chmodSync(secretFile, 0o666);
    const result = start(dataDir, { DATABASE_URL: process.env.TEST_DATABASE_URL!, JWT_SECRET: '' });
    expect(result.status).toBe(1);
    expect(failureLine(result)).toMatch(
      new RegExp(`DATA_DIR: ${secretFile} is writable by other users \\(mode 666\\).*run: chmod 600 ${secretFile}$`),
    );
  });

  it('generates the jwt-secret 0600, owned by the service, and tightens one that others could read', async () => {
    const dataDir = makeTempDir('payments-private-dir');
    dirs.push(dataDir);
    const secretFile = join(dataDir, 'jwt-secret');
    await (await startTestApp({ DATA_DIR: dataDir, JWT_SECRET: '' })).close();
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(statSync(secretFile).uid).toBe(process.getuid!());
    chmodSync(secretFile, 0o644);
    await (await startTestApp({ DATA_DIR: dataDir, JWT_SECRET: '' })).close();
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
  });
});
