import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { embeddedPasswords, embeddedUrl, SUPERUSER } from '../../src/database/embedded-roles';
import { ApiClient, type RegisteredUser } from '../support/api-client';
import { TEST_JWT_SECRET } from '../support/jwt';
import { expectMoneyIntact, expectNoServerErrors, TransferLoad } from '../support/transfer-load';

const USERS = 12;
const OPENING_BALANCE = 1000;
const WORKERS = 8;

async function registerUsers(api: ApiClient): Promise<RegisteredUser[]> {
  return Promise.all(Array.from({ length: USERS }, () => api.registerUser({ balance: OPENING_BALANCE })));
}

function tempDataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Embedded PostgreSQL runs as the postgres user when we are root: let it reach its directory.
  chmodSync(dir, 0o755);
  return dir;
}

describe('database loss under load', () => {
  const directories: string[] = [];
  beforeAll(() => Logger.overrideLogger(['error']));
  afterAll(() => directories.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('embedded: SIGKILL of the postmaster gives 503s, no 500s, and transfers again within 15 s', async () => {
    const dataDir = tempDataDir('payments-chaos-');
    directories.push(dataDir);
    const service = await ServiceProcess.start(
      { DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_PER_SECOND: '100000' },
      90_000,
    );
    try {
      const api = new ApiClient(service.baseUrl);
      const users = await registerUsers(api);
      const load = new TransferLoad(api, users, WORKERS, true);
      await sleep(1500);

      const [pid, , , port] = readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
      const killedAt = Date.now();
      process.kill(Number(pid), 'SIGKILL');
      const sawOutage = async () => {
        while (!load.attempts.some((a) => a.at > killedAt && a.status === 503)) await sleep(20);
      };
      await Promise.race([sawOutage(), sleep(5000)]);
      const recoveredAt = await load.firstSuccessAfter(killedAt, 15_000);
      await sleep(500);
      await load.stop();

      expect(recoveredAt - killedAt).toBeLessThan(15_000);
      expect(load.attempts.filter((a) => a.at > killedAt && a.status === 503).length).toBeGreaterThan(0);
      expectNoServerErrors(load.attempts);
      expect(service.child.exitCode).toBeNull(); // the same Node process throughout
      expect((await fetch(`${service.baseUrl}/actuator/health/liveness`)).status).toBe(200);
      const superuserUrl = embeddedUrl(SUPERUSER, embeddedPasswords(dataDir).superuser, Number(port));
      await expectMoneyIntact(load, users, OPENING_BALANCE, superuserUrl);
    } finally {
      expect(await service.stop('SIGTERM')).toBe(0);
    }
  }, 180_000);

  it('external: a server stopped and started again gives 503s, no 500s, and transfers within 10 s of its return', async () => {
    const dataDir = tempDataDir('payments-chaos-external-');
    directories.push(dataDir);
    const database = new EmbeddedDatabase({ dataDir, fsync: false });
    const url = await database.start();
    const service = await ServiceProcess.start({
      DATABASE_URL: url,
      DATA_DIR: tempDataDir('payments-chaos-service-'),
      JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_PER_SECOND: '100000',
    });
    try {
      const api = new ApiClient(service.baseUrl);
      const users = await registerUsers(api);
      const load = new TransferLoad(api, users, WORKERS, true);
      await sleep(1500);

      const stoppedAt = Date.now();
      await database.stop();
      await sleep(2000);
      expect((await fetch(`${service.baseUrl}/actuator/health/readiness`)).status).toBe(503);
      await database.start(); // same port, as a restarted server would be
      const backAt = Date.now();
      const recoveredAt = await load.firstSuccessAfter(backAt, 10_000);
      await sleep(500);
      await load.stop();

      expect(recoveredAt - backAt).toBeLessThan(10_000);
      expect(load.attempts.filter((a) => a.at > stoppedAt && a.status === 503).length).toBeGreaterThan(0);
      expectNoServerErrors(load.attempts);
      expect(service.child.exitCode).toBeNull();
      expect((await fetch(`${service.baseUrl}/actuator/health/readiness`)).status).toBe(200);
      await expectMoneyIntact(load, users, OPENING_BALANCE, url);
    } finally {
      expect(await service.stop('SIGTERM')).toBe(0);
      await database.stop();
    }
  }, 180_000);
});
