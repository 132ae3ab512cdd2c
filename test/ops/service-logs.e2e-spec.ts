import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { ApiClient } from '../support/api-client';
import { createScratchDatabase, withClient } from '../support/db';
import { TEST_JWT_SECRET } from '../support/jwt';
import { waitUntil } from '../support/wait';

interface Line {
  level: string;
  msg: string;
  context?: string;
  requestId?: string;
}

/** Every line must be one JSON object: a log pipeline reads nothing else. */
function jsonLines(output: string): Line[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Line;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

const temporary: string[] = [];
afterAll(() => temporary.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-service-logs-'));
  temporary.push(dir);
  // Embedded PostgreSQL runs as the "postgres" OS user when the tests run as root: it must reach the
  // directory, which the service refuses when others can write it.
  chmodSync(dir, 0o755);
  return dir;
};

describe('what the service logs around its own start, database losses and stop', () => {
  it('starts in a handful of JSON lines, and a lost pool connection carries no request id', async () => {
    const scratch = await createScratchDatabase();
    const service = await ServiceProcess.start({
      DATABASE_URL: scratch.url,
      DATA_DIR: dataDir(),
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: 'info',
    });
    try {
      const startUp = jsonLines(service.recentOutput);
      expect(startUp.length).toBeLessThanOrEqual(5);
      expect(startUp.map((line) => line.context)).not.toContain('RouterExplorer');
      expect(startUp.at(-1)?.msg).toMatch(/^Payment service listening on /);

      // Requests open the pool's connections, so each connection is born inside a request's context.
      const api = new ApiClient(service.baseUrl);
      const [alice, bob] = [await api.registerUser({ balance: 100 }), await api.registerUser()];
      for (let i = 0; i < 3; i++) expect((await api.transfer(alice, bob.upiId, 1)).status).toBe(201);

      const database = new URL(scratch.url).pathname.slice(1);
      await withClient(scratch.url, (db) =>
        db.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        ),
      );
      await waitUntil(() => service.recentOutput.includes('Database connection lost'), 'a lost-connection line');
      const lost = jsonLines(service.recentOutput).filter((line) => line.msg.startsWith('Database connection lost'));
      expect(lost.length).toBeGreaterThan(0);
      for (const line of lost) expect(line).toEqual(expect.not.objectContaining({ requestId: expect.anything() }));
      expect(lost.map((line) => line.level)).toEqual(lost.map(() => 'warn'));
    } finally {
      expect(await service.stop('SIGTERM')).toBe(0);
      await scratch.drop();
    }
  }, 120_000);

  it('Ctrl-C (SIGINT to the service and its embedded PostgreSQL) stops without warnings', async () => {
    const service = await ServiceProcess.start(
      { DATA_DIR: dataDir(), JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'info' },
      120_000,
    );
    const api = new ApiClient(service.baseUrl);
    const [alice, bob] = [await api.registerUser({ balance: 100 }), await api.registerUser()];
    expect((await api.transfer(alice, bob.upiId, 1)).status).toBe(201);
    // The terminal sends SIGINT to the whole foreground process group: the postmaster gets it too.
    const children = execFileSync('pgrep', ['-P', String(service.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n');
    // Ctrl-C reaches both at once, as here.
    const exited = service.stop('SIGINT');
    for (const pid of children.filter(Boolean)) process.kill(Number(pid), 'SIGINT');
    expect(await exited).toBe(0);
    const lines = jsonLines(service.recentOutput);
    // (The start-up check's anonymous request is a 401, a warn request line: not what this is about.)
    const application = lines.filter((line) => line.msg !== 'request completed');
    expect(application.filter((line) => line.level !== 'info')).toEqual([]);
    expect(lines.at(-1)?.msg).toMatch(/Stopped cleanly|Embedded PostgreSQL stopped/);
  }, 180_000);
});
