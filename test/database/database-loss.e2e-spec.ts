import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { embeddedPasswords, embeddedUrl, SUPERUSER } from '../../src/database/embedded-roles';
import { ApiClient, newIdempotencyKey, type RegisteredUser } from '../support/api-client';
import { TEST_JWT_SECRET } from '../support/jwt';

const USERS = 12;
const OPENING_BALANCE = 1000;
const WORKERS = 8;

interface Attempt {
  key: string;
  sender: RegisteredUser;
  receiverUpiId: string;
  amount: string;
  at: number;
  status?: number;
  body?: { referenceId: string; type?: string; detail?: string };
  retryAfter?: string | null;
  contentType?: string | null;
}

/**
 * 8 clients send transfers with idempotency keys, without pause, while the test takes the
 * database away and gives it back. The Node process is never restarted.
 */
class TransferLoad {
  readonly attempts: Attempt[] = [];
  private running = true;
  private readonly workers: Promise<void>[];

  constructor(
    private readonly api: ApiClient,
    private readonly users: RegisteredUser[],
  ) {
    this.workers = Array.from({ length: WORKERS }, (_, seed) => this.worker(seed));
  }

  private async worker(seed: number): Promise<void> {
    for (let i = seed; this.running; i += WORKERS) {
      const sender = this.users[i % USERS];
      const receiver = this.users[(i * 7 + 3) % USERS];
      if (receiver === sender) continue;
      const attempt: Attempt = {
        key: newIdempotencyKey(),
        sender,
        receiverUpiId: receiver.upiId,
        amount: `${1 + (i % 37)}.${String(i % 100).padStart(2, '0')}`,
        at: Date.now(),
      };
      this.attempts.push(attempt);
      await this.send(attempt);
      // A client backs off a little on 503 (less than Retry-After, to see the recovery promptly).
      if (attempt.status === 503) await sleep(100);
    }
  }

  async send(attempt: Attempt): Promise<void> {
    const response = await this.api.transfer(attempt.sender, attempt.receiverUpiId, attempt.amount, {
      key: attempt.key,
    });
    attempt.status = response.status;
    attempt.body = response.body;
    attempt.retryAfter = response.headers.get('retry-after');
    attempt.contentType = response.headers.get('content-type');
  }

  /** Resolves with the time of the first 201 to a transfer sent after `since`. */
  async firstSuccessAfter(since: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const success = this.attempts.find((a) => a.at >= since && a.status === 201);
      if (success) return success.at;
      await sleep(50);
    }
    throw new Error(`no transfer succeeded within ${timeoutMs} ms after the database returned`);
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }
}

/** During the outage: only 201, 503 problems with Retry-After, or a business 422; never a 500. */
function expectNoServerErrors(attempts: Attempt[]): void {
  const unexpected = attempts.filter(
    (a) => !(a.status === 201 || a.status === 503 || (a.status === 422 && /insufficient-balance$/.test(a.body!.type!))),
  );
  expect(unexpected.map((a) => ({ status: a.status, body: a.body }))).toEqual([]);
  for (const attempt of attempts.filter((a) => a.status === 503)) {
    expect(attempt.body?.type).toMatch(/\/service-unavailable$/);
    expect(attempt.contentType).toMatch(/^application\/problem\+json/);
    expect(Number(attempt.retryAfter)).toBeGreaterThan(0);
  }
}

/** Retry every 503 with its key, then: each acknowledged transfer exists exactly once and no money moved otherwise. */
async function expectMoneyIntact(load: TransferLoad, users: RegisteredUser[], url: string): Promise<void> {
  for (const attempt of load.attempts.filter((a) => a.status === 503)) await load.send(attempt);
  expect(load.attempts.filter((a) => a.status !== 201 && a.status !== 422)).toEqual([]);
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const succeeded = load.attempts.filter((a) => a.status === 201);
    const stored = await db.query(
      `SELECT t.reference_id::text, t.amount::text FROM transactions t JOIN users u ON u.id = t.sender_id
       WHERE u.reference_id = ANY($1::uuid[])`,
      [users.map((u) => u.referenceId)],
    );
    const storedAmounts = new Map(stored.rows.map((row) => [row.reference_id, Number(row.amount)]));
    expect(storedAmounts.size).toBe(succeeded.length);
    for (const attempt of succeeded) expect(storedAmounts.get(attempt.body!.referenceId)).toBe(Number(attempt.amount));
    expect(await findLedgerViolations(db, { userReferenceIds: users.map((u) => u.referenceId) })).toEqual([]);
    const total = await db.query('SELECT sum(balance)::text AS total FROM users WHERE reference_id = ANY($1::uuid[])', [
      users.map((u) => u.referenceId),
    ]);
    expect(total.rows[0].total).toBe(`${USERS * OPENING_BALANCE}.0000`);
  } finally {
    await db.end();
  }
}

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
      const load = new TransferLoad(api, users);
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
      await expectMoneyIntact(load, users, superuserUrl);
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
      const load = new TransferLoad(api, users);
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
      await expectMoneyIntact(load, users, url);
    } finally {
      expect(await service.stop('SIGTERM')).toBe(0);
      await database.stop();
    }
  }, 180_000);
});
