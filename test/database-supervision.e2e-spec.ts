import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp } from './support/test-app';

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
