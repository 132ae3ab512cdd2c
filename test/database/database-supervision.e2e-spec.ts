import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp } from '../support/test-app';

/** The embedded PostgreSQL, supervised by the service: what happens when it cannot come back. */
describe('embedded database supervision', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-supervision-'));
  // Embedded PostgreSQL runs as the postgres user when we are root: let it reach its directory.
  chmodSync(dataDir, 0o755);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('turns liveness DOWN when the postmaster cannot be restarted, and still shuts down within its deadline', async () => {
    const t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir, DATABASE_RESTART_WINDOW_MS: '1500' });
    let closed = false;
    try {
      expect((await t.api.get('/actuator/health/liveness')).body).toEqual({ status: 'UP' });
      const databaseDir = join(dataDir, 'postgres');
      const pid = Number(readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      // Without PG_VERSION the directory is no cluster: every restart attempt fails (and none re-initialises it).
      renameSync(join(databaseDir, 'PG_VERSION'), join(databaseDir, 'PG_VERSION.hidden'));
      process.kill(pid, 'SIGKILL');

      const deadline = Date.now() + 20_000;
      let liveness = await t.api.get('/actuator/health/liveness');
      while (liveness.status === 200 && Date.now() < deadline) {
        await sleep(200);
        liveness = await t.api.get('/actuator/health/liveness');
      }
      expect({ status: liveness.status, body: liveness.body }).toEqual({ status: 503, body: { status: 'DOWN' } });
      expect((await t.api.get('/actuator/health/readiness')).status).toBe(503);

      const closing = Date.now();
      await t.close();
      closed = true;
      expect(Date.now() - closing).toBeLessThan(9000);
    } finally {
      if (!closed) await t.close();
    }
  }, 90_000);
});

/** After the restart window the service says so (liveness DOWN) but does not stop healing. */
describe('embedded database supervision after the restart window', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-supervision-forever-'));
  chmodSync(dataDir, 0o755);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps restarting with capped back-off, and liveness and readiness return UP without a restart of Node', async () => {
    const t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir, DATABASE_RESTART_WINDOW_MS: '1000' });
    try {
      const user = await t.api.registerUser({ balance: 10 });
      const databaseDir = join(dataDir, 'postgres');
      const pid = Number(readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      renameSync(join(databaseDir, 'PG_VERSION'), join(databaseDir, 'PG_VERSION.hidden'));
      process.kill(pid, 'SIGKILL');

      const waitFor = async (path: string, status: number, timeoutMs: number) => {
        const deadline = Date.now() + timeoutMs;
        let response = await t.api.get(path);
        while (response.status !== status && Date.now() < deadline) {
          await sleep(200);
          response = await t.api.get(path);
        }
        return response.status;
      };
      expect(await waitFor('/actuator/health/liveness', 503, 20_000)).toBe(503);
      // Well past the window: still DOWN, still trying.
      await sleep(5000);
      expect((await t.api.get('/actuator/health/liveness')).status).toBe(503);

      const repairedAt = Date.now();
      renameSync(join(databaseDir, 'PG_VERSION.hidden'), join(databaseDir, 'PG_VERSION'));
      expect(await waitFor('/actuator/health/liveness', 200, 15_000)).toBe(200);
      expect(await waitFor('/actuator/health/readiness', 200, 15_000)).toBe(200);
      expect(Date.now() - repairedAt).toBeLessThan(15_000);
      // The data from before the loss is served again by the same process.
      expect((await t.api.get(`/api/v1/users/${user.referenceId}`, user.token)).status).toBe(200);
    } finally {
      await t.close();
    }
  }, 90_000);
});
