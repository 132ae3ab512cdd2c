import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { ApiClient, newIdempotencyKey } from '../support/api-client';
import { connectTestDatabase } from '../support/db';
import { TEST_JWT_SECRET } from '../support/jwt';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { waitUntil } from '../support/wait';

const WORKERS = 8;
/** The server closed a kept-alive connection as the client reused it: the request may never have arrived. */
const CONNECTION_LOST = ['ECONNRESET', 'UND_ERR_SOCKET'];

describe('graceful shutdown', () => {
  let db: Client;
  const dataDirs: string[] = [];
  const dataDir = (prefix: string) => dataDirs[dataDirs.push(makeTempDir(prefix)) - 1];
  beforeAll(async () => {
    db = await connectTestDatabase();
  });
  afterAll(async () => {
    await db.end();
    dataDirs.splice(0).forEach(removeTempDir);
  });

  it('finishes or cleanly refuses every request on SIGTERM, exits 0 within 10 s, and keeps the ledger whole', async () => {
    const service = await ServiceProcess.start({
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATA_DIR: dataDir('payments-shutdown'),
      JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_PER_SECOND: '100000',
      LOG_LEVEL: 'info',
    });
    const api = new ApiClient(service.baseUrl);
    const users = await Promise.all(Array.from({ length: 8 }, () => api.registerUser({ balance: 1000 })));
    const outcomes: { key: string; sender: string; status?: number; error?: string; referenceId?: string }[] = [];

    let stopping = false;
    const worker = async (seed: number) => {
      for (let i = seed; ; i += WORKERS) {
        const outcome: (typeof outcomes)[number] = { key: newIdempotencyKey(), sender: users[i % 8].upiId };
        outcomes.push(outcome);
        try {
          const response = await api.transfer(users[i % 8], users[(i + 3) % 8].upiId, 1 + (i % 50), {
            key: outcome.key,
          });
          outcome.status = response.status;
          outcome.referenceId = response.body?.referenceId;
        } catch (error) {
          outcome.error = ((error as Error).cause as { code?: string })?.code ?? (error as Error).message;
          if (stopping) return;
        }
      }
    };
    const stream = Array.from({ length: WORKERS }, (_, seed) => worker(seed));
    // Signal mid-stream once it is well under way, however slow the machine: by count, not by clock.
    await sleep(1000);
    await waitUntil(() => outcomes.filter((o) => o.status === 201).length > 20, 'a stream well under way', 30_000);
    stopping = true;
    const signalled = Date.now();
    const exitCode = await service.stop('SIGTERM');
    const stoppedWithin = Date.now() - signalled;
    await Promise.all(stream);

    expect(exitCode).toBe(0);
    expect(stoppedWithin).toBeLessThan(10_000);
    const completed = outcomes.filter((o) => o.status === 201);
    expect(completed.length).toBeGreaterThan(20);
    // Every answer is a real outcome, a clean 503 during the drain, or a refused connection afterwards.
    const unclean = outcomes.filter(
      (o) =>
        !(o.status === 201 || o.status === 503 || o.error === 'ECONNREFUSED' || CONNECTION_LOST.includes(o.error!)),
    );
    expect(unclean).toEqual([]);
    // A connection reset is clean only if the request never ran: no idempotency record for its key.
    for (const reset of outcomes.filter((o) => CONNECTION_LOST.includes(o.error!))) {
      const claimed = await db.query(
        'SELECT 1 FROM idempotency_keys WHERE owner_upi_id = lower($1) AND idempotency_key = $2',
        [reset.sender, reset.key],
      );
      expect(claimed.rowCount).toBe(0);
    }
    expect(service.recentOutput).toContain('Stopped cleanly');

    const stored = await db.query('SELECT reference_id::text FROM transactions WHERE reference_id = ANY($1::uuid[])', [
      completed.map((o) => o.referenceId),
    ]);
    expect(stored.rowCount).toBe(completed.length);
    expect(await findLedgerViolations(db, { userReferenceIds: users.map((u) => u.referenceId) })).toEqual([]);
  }, 90_000);

  it('writes JSON log lines carrying the request id and never the bearer token', async () => {
    const service = await ServiceProcess.start({
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATA_DIR: dataDir('payments-logs'),
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: 'info',
    });
    try {
      const api = new ApiClient(service.baseUrl);
      const user = await api.registerUser();
      const requestId = '0b7c6a52-3f1e-4a8b-9c2d-6e5f4a3b2c1d';
      await api.request('GET', `/api/v1/users/${user.referenceId}`, {
        token: user.token,
        headers: { 'x-request-id': requestId },
      });
      await sleep(200);
      const lines = service.recentOutput.split('\n').filter((line) => line.startsWith('{'));
      expect(lines.length).toBeGreaterThan(3);
      const ofRequest = lines.map((line) => JSON.parse(line)).filter((entry) => entry.requestId === requestId);
      expect(ofRequest).toEqual([
        expect.objectContaining({
          level: 'info',
          req: { method: 'GET', url: `/api/v1/users/${user.referenceId}` },
          res: { statusCode: 200 },
        }),
      ]);
      expect(service.recentOutput).not.toContain(user.token);
      expect(service.recentOutput).not.toContain(user.token.split('.')[2]);
    } finally {
      await service.stop('SIGTERM');
    }
  }, 60_000);
});
