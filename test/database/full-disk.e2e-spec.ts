import { Client } from 'pg';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { EMBEDDED_DATABASE } from '../../src/database/database.module';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { type ApiClient, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { canMount, fillUp, freeSpace, mountSmallFilesystem, relocate, unmount } from '../support/small-filesystem';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { startTestApp, type TestApp } from '../support/test-app';
import { expectMoneyIntact, expectNoServerErrors, TransferLoad } from '../support/transfer-load';

const OPENING_BALANCE = 1000;
const RECOVERY_BOUND_MS = 15_000;

if (!canMount) {
  // Mounting a small filesystem needs root. CI (.ci/run) runs as root, so these run there.
  console.warn('full-disk tests skipped: they mount a tmpfs, which needs root (run them as root, as CI does)');
}
const describeAsRoot = canMount ? describe : describe.skip;

/** Samples a probe until stopped: the statuses it answered and when. */
function sampleProbe(api: ApiClient, path: string) {
  const samples: { at: number; status: number }[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const response = await api.get(path).catch(() => undefined);
      if (response) samples.push({ at: Date.now(), status: response.status });
      await sleep(200);
    }
  })();
  const firstAfter = async (since: number, status: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = samples.find((s) => s.at >= since && s.status === status);
      if (found) return found.at;
      await sleep(100);
    }
    throw new Error(`${path} did not answer ${status} within ${timeoutMs} ms`);
  };
  return { samples, firstAfter, stop: () => ((running = false), done) };
}

/** A cluster initialised in `dataDir` and stopped again, so that its directories can be moved before the service starts. */
async function initialiseCluster(dataDir: string): Promise<string> {
  const database = new EmbeddedDatabase({ dataDir });
  await database.start();
  await database.stop();
  return join(dataDir, 'postgres');
}

async function startService(dataDir: string, extra: Record<string, string> = {}) {
  const adminUpiId = uniqueUpiId('ops');
  const t = await startTestApp({
    DATABASE_URL: '',
    DATA_DIR: dataDir,
    ADMIN_UPI_IDS: adminUpiId,
    RATE_LIMIT_PER_SECOND: '100000',
    ...extra,
  });
  const admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
  const users: RegisteredUser[] = [];
  for (let i = 0; i < 8; i++) users.push(await t.api.registerUser({ balance: OPENING_BALANCE }));
  const superuserUrl = t.app.get<EmbeddedDatabase>(EMBEDDED_DATABASE).url;
  return { t, admin, users, superuserUrl };
}

async function expectAuditOk(t: TestApp, admin: RegisteredUser): Promise<void> {
  const audit = await t.api.get('/api/v1/admin/audit', admin.token);
  expect(audit.status).toBe(200);
  expect(audit.body.ok).toBe(true);
}

describeAsRoot('full disk', () => {
  // Quiet in the test's output; the spy still sees every error the service logs.
  beforeAll(() => Logger.overrideLogger(false));
  let errors: jest.SpyInstance;
  beforeEach(() => (errors = jest.spyOn(Logger.prototype, 'error')));
  afterEach(() => errors.mockRestore());

  it('data files: 503 with Retry-After, readiness DOWN, back within 15 s of space being freed, nothing lost', async () => {
    const base = makeTempDir('payments-full-data', { forPostgres: true });
    const dataDir = join(base, 'data');
    mountSmallFilesystem(dataDir, 128);
    let t: TestApp | undefined;
    let filler: string | undefined;
    try {
      // Only the data files are short of space: the WAL lives on the roomy disk beside.
      const databaseDir = await initialiseCluster(dataDir);
      relocate(join(databaseDir, 'pg_wal'), join(base, 'wal'));
      const started = await startService(dataDir);
      t = started.t;
      const load = new TransferLoad(t.api, started.users);
      const readiness = sampleProbe(t.api, '/actuator/health/readiness');
      await load.firstSuccessAfter(Date.now(), 10_000);

      const filledAt = Date.now();
      filler = fillUp(dataDir);
      await load.firstUnavailableAfter(filledAt, 20_000);
      await readiness.firstAfter(filledAt, 503, 15_000);
      await sleep(2000); // the fault lasts a while under load

      const freedAt = Date.now();
      freeSpace(filler);
      const recoveredAt = await load.firstSuccessAfter(freedAt, RECOVERY_BOUND_MS);
      const readyAt = await readiness.firstAfter(freedAt, 200, RECOVERY_BOUND_MS);
      await load.stop();
      await readiness.stop();

      expect(recoveredAt - freedAt).toBeLessThan(RECOVERY_BOUND_MS);
      expect(readyAt - freedAt).toBeLessThan(RECOVERY_BOUND_MS);
      expect(load.attempts.filter((a) => a.status === 503).length).toBeGreaterThan(0);
      expectNoServerErrors(load.attempts);
      await expectMoneyIntact(load, started.users, OPENING_BALANCE, started.superuserUrl);
      await expectAuditOk(t, started.admin);
    } finally {
      // A failed assertion must not leave the database without space while it shuts down.
      if (filler) freeSpace(filler);
      await t?.close();
      unmount(dataDir);
      removeTempDir(base);
    }
  }, 120_000);

  it('WAL: PostgreSQL stops, liveness DOWN after the window, back by itself within 15 s of space being freed', async () => {
    const base = makeTempDir('payments-full-wal', { forPostgres: true });
    const dataDir = join(base, 'data');
    const walDir = join(base, 'wal');
    let t: TestApp | undefined;
    let filler: string | undefined;
    try {
      const databaseDir = await initialiseCluster(dataDir);
      mountSmallFilesystem(walDir, 96, join(databaseDir, 'pg_wal'));
      relocate(join(databaseDir, 'pg_wal'), walDir);
      const started = await startService(dataDir, { DATABASE_RESTART_WINDOW_MS: '2000' });
      t = started.t;
      const load = new TransferLoad(t.api, started.users);
      const readiness = sampleProbe(t.api, '/actuator/health/readiness');
      const liveness = sampleProbe(t.api, '/actuator/health/liveness');
      await load.firstSuccessAfter(Date.now(), 10_000);

      const filledAt = Date.now();
      filler = fillUp(walDir);
      await switchWalUntilItFails(started.superuserUrl, 20_000);
      await load.firstUnavailableAfter(filledAt, 20_000);
      await readiness.firstAfter(filledAt, 503, 15_000);
      await liveness.firstAfter(filledAt, 503, 20_000);
      // PostgreSQL's own words reach the service's log at error, without raising the log level.
      const logged = errors.mock.calls.map((call) => String(call[0])).join('\n');
      expect(logged).toMatch(/PANIC: .*No space left on device/);
      expect(logged).toMatch(/PostgreSQL's last lines/);

      const freedAt = Date.now();
      freeSpace(filler);
      const recoveredAt = await load.firstSuccessAfter(freedAt, RECOVERY_BOUND_MS);
      const readyAt = await readiness.firstAfter(freedAt, 200, RECOVERY_BOUND_MS);
      const liveAt = await liveness.firstAfter(freedAt, 200, RECOVERY_BOUND_MS);
      await load.stop();
      await Promise.all([readiness.stop(), liveness.stop()]);

      expect(Math.max(recoveredAt, readyAt, liveAt) - freedAt).toBeLessThan(RECOVERY_BOUND_MS);
      expectNoServerErrors(load.attempts);
      await expectMoneyIntact(load, started.users, OPENING_BALANCE, started.superuserUrl);
      await expectAuditOk(t, started.admin);
    } finally {
      // A failed assertion must not leave the database without space while it shuts down.
      if (filler) freeSpace(filler);
      await t?.close();
      unmount(walDir);
      removeTempDir(base);
    }
  }, 150_000);
});

/**
 * Forces WAL segment switches until PostgreSQL needs a new segment file and cannot create one:
 * it then stops (PANIC), which ends the connection.
 */
async function switchWalUntilItFails(superuserUrl: string, timeoutMs: number): Promise<void> {
  const client = new Client({ connectionString: superuserUrl });
  client.on('error', () => undefined);
  await client.connect();
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      await client.query('SELECT pg_switch_wal()');
      await sleep(200);
    }
  } catch {
    return;
  } finally {
    await client.end().catch(() => undefined);
  }
  throw new Error(`PostgreSQL kept writing WAL for ${timeoutMs} ms on a full filesystem`);
}
