import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { ApiClient, newIdempotencyKey, type RegisteredUser } from '../support/api-client';
import { TEST_JWT_SECRET } from '../support/jwt';
import { expectNoServerErrors, TransferLoad } from '../support/transfer-load';
import { waitUntil } from '../support/wait';

/**
 * Two real PostgreSQL servers with the same data (the second a copy of the first's stopped data
 * directory, made after the users registered), standing in for a primary and a promoted standby.
 * "Read-only" is default_transaction_read_only, set and reset with ALTER SYSTEM + reload: what a
 * client sees of a standby (25006 on writes), and the way back is its promotion.
 */
const OPENING_BALANCE = 1000;

function tempDataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Embedded PostgreSQL runs as the postgres user when we are root: let it reach its directory.
  chmodSync(dir, 0o755);
  return dir;
}

/** The superuser URL of `database`, with its host:port swapped for `hosts` (libpq's multi-host form). */
function urlWithHosts(database: EmbeddedDatabase, hosts: EmbeddedDatabase[], query = ''): string {
  const url = new URL(database.url);
  const list = hosts.map((server) => new URL(server.url).host).join(',');
  return `${url.protocol}//${url.username}:${url.password}@${list}${url.pathname}${query}`;
}

async function setReadOnly(database: EmbeddedDatabase, readOnly: boolean): Promise<void> {
  const db = new Client({ connectionString: database.url });
  await db.connect();
  try {
    await db.query(`ALTER SYSTEM SET default_transaction_read_only = ${readOnly ? 'on' : 'off'}`);
    await db.query('SELECT pg_reload_conf()');
  } finally {
    await db.end();
  }
}

async function countTransfers(database: EmbeddedDatabase, referenceIds: string[]): Promise<number> {
  const db = new Client({ connectionString: database.url });
  await db.connect();
  try {
    const { rows } = await db.query(
      'SELECT count(*)::int AS n FROM transactions WHERE reference_id = ANY($1::uuid[])',
      [referenceIds],
    );
    return rows[0].n;
  } finally {
    await db.end();
  }
}

/** The service as a child process, with every line it prints kept (ServiceProcess keeps only a tail). */
async function startService(env: Record<string, string>): Promise<{ service: ServiceProcess; lines: string[] }> {
  const service = await ServiceProcess.start({
    DATA_DIR: tempDataDir('payments-failover-service-'),
    JWT_SECRET: TEST_JWT_SECRET,
    RATE_LIMIT_PER_SECOND: '100000',
    ...env,
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean));
  service.child.stdout?.on('data', keep);
  service.child.stderr?.on('data', keep);
  return { service, lines };
}

const matching = (lines: string[], pattern: RegExp) => lines.filter((line) => pattern.test(line));

async function readiness(service: ServiceProcess): Promise<number> {
  return (await fetch(`${service.baseUrl}/actuator/health/readiness`)).status;
}

describe('a database that fails over', () => {
  const directories: string[] = [];
  let first: EmbeddedDatabase;
  let second: EmbeddedDatabase;
  let users: RegisteredUser[];

  beforeAll(async () => {
    Logger.overrideLogger(['error']);
    const firstDir = tempDataDir('payments-failover-a-');
    const secondDir = tempDataDir('payments-failover-b-');
    directories.push(firstDir, secondDir);
    first = new EmbeddedDatabase({ dataDir: firstDir, fsync: false });
    await first.start();
    const { service } = await startService({ DATABASE_URL: first.url });
    try {
      const api = new ApiClient(service.baseUrl);
      users = await Promise.all(Array.from({ length: 6 }, () => api.registerUser({ balance: OPENING_BALANCE })));
    } finally {
      await service.stop();
    }
    await first.stop();
    // The "standby": the same data, as a base backup would give it.
    execFileSync('cp', ['-a', `${firstDir}/.`, secondDir]);
    await first.start();
    second = new EmbeddedDatabase({ dataDir: secondDir, fsync: false });
    await second.start();
  }, 180_000);

  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    directories.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  it('boots on a multi-host URL whose first server is read-only, and writes to the writable one', async () => {
    await setReadOnly(first, false);
    await setReadOnly(second, true);
    const url = urlWithHosts(first, [second, first], '?target_session_attrs=read-write');
    const { service } = await startService({ DATABASE_URL: url });
    try {
      const api = new ApiClient(service.baseUrl);
      const response = await api.transfer(users[0], users[1].upiId, '1.00', { key: newIdempotencyKey() });
      expect(response.status).toBe(201);
      expect(await countTransfers(first, [response.body.referenceId])).toBe(1);
      expect(await countTransfers(second, [response.body.referenceId])).toBe(0);
      expect(await readiness(service)).toBe(200);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 120_000);

  it('when the primary turns read-only and the other server is promoted: 503s only, then 201s by itself, one warning each way', async () => {
    await setReadOnly(first, false);
    await setReadOnly(second, true);
    const { service, lines } = await startService({ DATABASE_URL: urlWithHosts(first, [first, second]) });
    try {
      const api = new ApiClient(service.baseUrl);
      const load = new TransferLoad(api, users, 2);
      await load.firstSuccessAfter(Date.now(), 10_000);

      const demotedAt = Date.now();
      await setReadOnly(first, true); // no primary at all for a while, as during a real failover
      await load.firstUnavailableAfter(demotedAt, 10_000);
      await waitUntil(async () => (await readiness(service)) === 503, 'readiness 503', 10_000);
      await sleep(1500);

      await setReadOnly(second, false); // the standby is promoted
      const promotedAt = Date.now();
      const recoveredAt = await load.firstSuccessAfter(promotedAt, 10_000);
      await sleep(1000);
      await load.stop();

      expect(recoveredAt - promotedAt).toBeLessThan(5000);
      expectNoServerErrors(load.attempts);
      expect(load.attempts.filter((a) => a.at > demotedAt && a.status === 503).length).toBeGreaterThan(0);
      await waitUntil(async () => (await readiness(service)) === 200, 'readiness 200', 10_000);
      // The transfers after the promotion are on the promoted server, and its ledger holds.
      const after = load.attempts.filter((a) => a.at > recoveredAt && a.status === 201);
      expect(after.length).toBeGreaterThan(0);
      expect(
        await countTransfers(
          second,
          after.map((a) => a.body!.referenceId),
        ),
      ).toBe(after.length);
      const db = new Client({ connectionString: second.url });
      await db.connect();
      try {
        expect(await findLedgerViolations(db, { userReferenceIds: users.map((u) => u.referenceId) })).toEqual([]);
      } finally {
        await db.end();
      }

      expect(matching(lines, /No writable database primary/)).toHaveLength(1);
      expect(matching(lines, /Database primary available again at 127\.0\.0\.1:\d+/)).toHaveLength(1);
      // Nothing else logs per attempt, neither for the requests nor the background workers (the
      // access log keeps its one line per request, by status: that is what it is for).
      const accessLog = /"msg":"request (completed|errored)"/;
      const warnings = matching(lines, /"level":"(warn|error|fatal)"/).filter((line) => !accessLog.test(line));
      expect(warnings).toEqual([
        expect.stringMatching(/No writable database primary/),
        expect.stringMatching(/Database primary available again/),
      ]);
      const metrics = await (await fetch(`${service.baseUrl}/actuator/prometheus`)).text();
      expect(metrics).toMatch(/payments_db_unavailable_failures_total\{component="requests"\} [1-9]/);
      expect(metrics).toMatch(/payments_db_primary_available 1/);
    } finally {
      expect(await service.stop()).toBe(0);
      await setReadOnly(first, false);
      await setReadOnly(second, true);
    }
  }, 120_000);

  it('a single server that turns read-only: 503 with Retry-After and readiness DOWN, then 201 when it takes writes again', async () => {
    await setReadOnly(first, false);
    const { service } = await startService({ DATABASE_URL: first.url });
    try {
      const api = new ApiClient(service.baseUrl);
      expect((await api.transfer(users[2], users[3].upiId, '1.00', { key: newIdempotencyKey() })).status).toBe(201);
      await setReadOnly(first, true);
      const refused = await api.transfer(users[2], users[3].upiId, '1.00', { key: newIdempotencyKey() });
      expect(refused.status).toBe(503);
      expect(refused.body.type).toMatch(/\/service-unavailable$/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      await waitUntil(async () => (await readiness(service)) === 503, 'readiness 503', 10_000);
      expect((await fetch(`${service.baseUrl}/actuator/health/liveness`)).status).toBe(200);

      await setReadOnly(first, false);
      const key = newIdempotencyKey();
      const transferred = async () => (await api.transfer(users[2], users[3].upiId, '1.00', { key })).status === 201;
      await waitUntil(transferred, 'a transfer answered 201', 10_000);
      await waitUntil(async () => (await readiness(service)) === 200, 'readiness 200', 10_000);
    } finally {
      await setReadOnly(first, false);
      expect(await service.stop()).toBe(0);
    }
  }, 120_000);

  it('refuses to boot on a single read-only server, with one line that says why and what to do', async () => {
    await setReadOnly(second, true);
    const failure = await startService({ DATABASE_URL: second.url }).then(
      () => new Error('the service started'),
      (error: Error) => error,
    );
    const output = failure.message.split('\n').slice(1);
    expect(output.filter((line) => line.includes('failed to start'))).toEqual([
      expect.stringMatching(
        /DATABASE_URL: no writable primary \(127\.0\.0\.1:\d+ is read-only \(default_transaction_read_only is on\)\); .*must name the primary/,
      ),
    ]);
    expect(failure.message).not.toMatch(/^\s+at /m);
  }, 120_000);

  it('a hung server (SIGSTOP): requests answer 503 within the query bound, and 201 again once it runs', async () => {
    await setReadOnly(first, false);
    const { service } = await startService({ DATABASE_URL: first.url, DATABASE_QUERY_TIMEOUT_MS: '2000' });
    const api = new ApiClient(service.baseUrl);
    const transfer = () => api.transfer(users[4], users[5].upiId, '1.00', { key: newIdempotencyKey() });
    let processes: number[] = [];
    try {
      expect((await transfer()).status).toBe(201);
      // Listed after that transfer, so a backend it opened is stopped too.
      processes = await postgresProcesses(first, directories[0]);
      processes.forEach((pid) => signal(pid, 'SIGSTOP'));
      const answers = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const sentAt = Date.now();
          const response = await transfer();
          return { status: response.status, ms: Date.now() - sentAt };
        }),
      );
      // 2 s on the server's clock, 1 s more for a server that cannot keep it; a new connection: 5 s.
      expect(answers.map((answer) => answer.status)).toEqual([503, 503, 503, 503]);
      expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(6500);
      processes.forEach((pid) => signal(pid, 'SIGCONT'));
      const key = newIdempotencyKey();
      const transferred = async () => (await api.transfer(users[4], users[5].upiId, '1.00', { key })).status === 201;
      await waitUntil(transferred, 'a transfer answered 201', 10_000);
    } finally {
      processes.forEach((pid) => signal(pid, 'SIGCONT'));
      expect(await service.stop()).toBe(0);
    }
  }, 120_000);
});

/** A backend may have ended meanwhile (its client gave up on it): nothing to stop or wake then. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** The postmaster and every backend of `database`: stopping them all is a server that hangs. */
async function postgresProcesses(database: EmbeddedDatabase, dataDir: string): Promise<number[]> {
  const postmaster = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const db = new Client({ connectionString: database.url });
  await db.connect();
  try {
    const { rows } = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()');
    return [postmaster, ...rows.map((row) => row.pid)];
  } finally {
    await db.end();
  }
}
