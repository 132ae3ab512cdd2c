import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findFreePort, REPO_ROOT } from '../../scripts/lib/service-process';
import { maskUpiIds, requestLoggerOptions } from '../../src/common/logging';
import { ApiClient, newIdempotencyKey, randomPhone, uniqueUpiId } from '../support/api-client';
import { FakeUpiProvider } from '../support/fake-upi-provider';
import { TEST_JWT_SECRET } from '../support/jwt';

interface LogLine {
  level: string;
  msg: string;
  requestId?: string;
  responseTime?: number;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  transactionReferenceId?: string;
  replayed?: boolean;
  problemType?: string;
}

const START_TIMEOUT_MS = 120_000;
const LEVEL_NAMES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

describe('logs, as an operator reads them from the process', () => {
  let child: ChildProcess;
  let provider: FakeUpiProvider;
  let dataDir: string;
  let stdout = '';
  let stderr = '';
  let api: ApiClient;

  beforeAll(async () => {
    provider = await new FakeUpiProvider().start();
    dataDir = mkdtempSync(join(tmpdir(), 'payments-logging-'));
    const port = await findFreePort();
    child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'src', 'main.js')], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: process.env.TEST_DATABASE_URL!,
        DATA_DIR: dataDir,
        JWT_SECRET: TEST_JWT_SECRET,
        UPI_VERIFICATION_URL: `${provider.url}/verify`,
        LOG_LEVEL: 'info',
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    api = new ApiClient(`http://127.0.0.1:${port}`);
    // Generous: the machine running the suite may be busy.
    const deadline = Date.now() + START_TIMEOUT_MS - 10_000;
    for (;;) {
      try {
        if ((await fetch(`${api.baseUrl}/actuator/health/liveness`)).ok) break;
      } catch {
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`service did not start:\n${stdout}${stderr}`);
        }
      }
      await sleep(100);
    }
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    await provider.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const lines = () =>
    stdout
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as LogLine);
  const requestLine = (method: string, url: string, status: number) =>
    lines().find((l) => l.req?.method === method && l.req.url === url && l.res?.statusCode === status);
  /** The request line is written as the response finishes: poll for it rather than guess a delay. */
  const waitForLine = async (method: string, url: string, status: number) => {
    for (let tries = 0; tries < 200 && !requestLine(method, url, status); tries += 1) await sleep(50);
    return requestLine(method, url, status);
  };

  it('every line from the very first is JSON with a level name, and nothing goes to stderr', () => {
    const all = lines(); // throws on the first line that is not JSON
    // Start-up is a handful of lines now (Nest's module and route listing is at debug): the
    // check holds as long as the boot's own line is among them.
    expect(all.map((line) => line.msg)).toContainEqual(expect.stringMatching(/^Payment service listening on /));
    expect(all.every((line) => LEVEL_NAMES.includes(line.level))).toBe(true);
    expect(stderr).toBe('');
  });

  it('a transfer line carries the transaction reference and whether it was a replay; 4xx is warn', async () => {
    const [alice, bob] = await Promise.all([api.registerUser({ balance: 100 }), api.registerUser()]);
    const key = newIdempotencyKey();
    const first = await api.transfer(alice, bob.upiId, 5, { key });
    const replay = await api.transfer(alice, bob.upiId, 5, { key });
    expect([first.status, replay.status]).toEqual([201, 201]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const refused = await api.transfer(alice, bob.upiId, 1000);
    expect(refused.status).toBe(422);
    await waitForLine('POST', '/api/v1/transactions', 422);

    const transfers = lines().filter((l) => l.req?.url === '/api/v1/transactions');
    expect(transfers.filter((l) => l.res?.statusCode === 201)).toEqual([
      expect.objectContaining({ level: 'info', transactionReferenceId: first.body.referenceId, replayed: false }),
      expect.objectContaining({ level: 'info', transactionReferenceId: first.body.referenceId, replayed: true }),
    ]);
    // Each request's line carries the id its response was given, and only its own.
    const requestIds = [first, replay, refused].map((response) => response.headers.get('x-request-id'));
    expect(new Set(requestIds).size).toBe(3);
    expect(transfers.map((l) => l.requestId)).toEqual(requestIds);
    expect(transfers.every((l) => typeof l.responseTime === 'number' && l.msg === 'request completed')).toBe(true);
    const failed = transfers.find((l) => l.res?.statusCode === 422);
    expect(failed).toEqual(
      expect.objectContaining({ level: 'warn', problemType: 'insufficient-balance', replayed: false }),
    );
    expect(failed).not.toHaveProperty('transactionReferenceId');
  });

  it('a reversal line carries the same fields: a movement route is known by its metadata, not its URL', async () => {
    const [alice, bob] = await Promise.all([api.registerUser({ balance: 100 }), api.registerUser()]);
    const transfer = await api.transfer(alice, bob.upiId, 5);
    expect(transfer.status).toBe(201);
    const url = `/api/v1/transactions/${transfer.body.referenceId}/reversals`;
    const reversal = await api.post(url, {}, { token: bob.token, headers: { 'idempotency-key': newIdempotencyKey() } });
    expect(reversal.status).toBe(201);
    expect(await waitForLine('POST', url, 201)).toEqual(
      expect.objectContaining({ transactionReferenceId: reversal.body.referenceId, replayed: false }),
    );
    const read = `/api/v1/transactions/${transfer.body.referenceId}`;
    expect((await api.get(read, bob.token)).status).toBe(200);
    expect(await waitForLine('GET', read, 200)).not.toHaveProperty('replayed');
  });

  it('a 5xx is logged at error with its problem type', async () => {
    provider.mode = 'fail';
    const stranger = { name: 'Stranger', upiId: uniqueUpiId(), phoneNumber: randomPhone(), balance: 0 };
    const refused = await api.post('/api/v1/users', stranger);
    expect(refused.status).toBe(503);
    provider.mode = 'accept';
    const requestId = refused.headers.get('x-request-id');
    expect(await waitForLine('POST', '/api/v1/users', 503)).toEqual(
      expect.objectContaining({ level: 'error', problemType: 'service-unavailable', requestId }),
    );
    // An application line written inside the request carries the request's id too.
    expect(lines().filter((l) => l.msg.startsWith('UPI verification unavailable'))).toContainEqual(
      expect.objectContaining({ level: 'warn', requestId }),
    );
  });

  it('UPI IDs are masked in logged URLs and messages, percent-encoded or not', async () => {
    const carol = await api.registerUser();
    const [name, bank] = carol.upiId.split('@');
    expect((await api.get(`/api/v1/users/upi/${carol.upiId}`, carol.token)).status).toBe(200);
    expect((await api.get(`/api/v1/users/upi/${encodeURIComponent(carol.upiId)}`, carol.token)).status).toBe(200);
    expect(await waitForLine('GET', `/api/v1/users/upi/${name[0]}***@${bank}`, 200)).toBeDefined();
    expect(await waitForLine('GET', `/api/v1/users/upi/${name[0]}***%40${bank}`, 200)).toBeDefined();
    expect(stdout).not.toContain(name);
  });

  it("Fastify's own lines start at warn, or at LOG_LEVEL when that is higher (silent stays silent)", () => {
    expect(requestLoggerOptions('info').loggerInstance.level).toBe('warn');
    expect(requestLoggerOptions('debug').loggerInstance.level).toBe('warn');
    expect(requestLoggerOptions('error').loggerInstance.level).toBe('error');
    expect(requestLoggerOptions('silent').loggerInstance.level).toBe('silent');
  });

  it('masking keeps the first character and the bank handle', () => {
    expect(maskUpiIds('no user alice.k-1@okbank here')).toBe('no user a***@okbank here');
    expect(maskUpiIds('/users/upi/bob_2%40ybl?x=1')).toBe('/users/upi/b***%40ybl?x=1');
    expect(maskUpiIds('/api/v1/transactions')).toBe('/api/v1/transactions');
  });
});
