import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { ApiClient, uniqueUpiId } from '../support/api-client';
import { startCluster, type TestCluster } from '../support/cluster';
import { TEST_JWT_SECRET } from '../support/jwt';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { type Attempt, expectMoneyIntact, expectNoServerErrors, TransferLoad } from '../support/transfer-load';
import { waitUntil } from '../support/wait';

const USERS = 12;
// Large enough that no transfer of the load is refused for want of balance: every answer is 201 or 503.
const OPENING_BALANCE = 100_000;
const WORKERS = 8;
/** From the promotion on (as Patroni reports it), how long the service may take to answer 201 again. */
const RECOVERY_MS = 15_000;
/** How long the load goes on past RECOVERY_MS, so that what follows it is seen. */
const STEADY_MS = 5_000;

/**
 * Sends an unacknowledged transfer again with its key until it is acknowledged, as a client that
 * follows Retry-After would; then once more, which must replay the same transfer.
 */
async function retryUntilAcknowledged(load: TransferLoad, attempt: Attempt): Promise<void> {
  await waitUntil(
    async () => {
      await load.send(attempt);
      return attempt.status === 201;
    },
    `a 201 for the transfer with key ${attempt.key} (last answer ${attempt.status})`,
    30_000,
  );
  const referenceId = attempt.body!.referenceId;
  await load.send(attempt);
  expect({ status: attempt.status, referenceId: attempt.body?.referenceId }).toEqual({ status: 201, referenceId });
}

/** Runs `work` on every item, `lanes` at a time (clients retrying side by side). */
async function inLanes<T>(lanes: number, items: T[], work: (item: T) => Promise<void>): Promise<void> {
  const lane = async (first: number) => {
    for (let i = first; i < items.length; i += lanes) await work(items[i]);
  };
  await Promise.all(Array.from({ length: lanes }, (_, first) => lane(first)));
}

/** How many transactions carry each of `referenceIds`, read on one node. */
async function transactionCounts(url: string, referenceIds: string[]): Promise<Map<string, number>> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ reference_id: string; n: number }>(
      `SELECT reference_id::text, count(*)::int AS n FROM transactions
       WHERE reference_id = ANY($1::uuid[]) GROUP BY reference_id`,
      [referenceIds],
    );
    return new Map(rows.map((row) => [row.reference_id, row.n]));
  } finally {
    await db.end();
  }
}

async function wholeLedgerViolations(url: string): Promise<string[]> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    return await findLedgerViolations(db);
  } finally {
    await db.end();
  }
}

/**
 * The real thing: three PostgreSQL 18 nodes under Patroni with strict synchronous replication
 * (test/support/cluster.ts), the built service on their multi-host URL, transfers with
 * Idempotency-Keys from 8 clients, and the leader lost as if its machine died. Nobody touches the
 * service: it must find the promoted node by itself. About two minutes, most of it the cluster.
 */
describe('failover of the local Patroni cluster under load', () => {
  let cluster: TestCluster | undefined;
  const dataDirs: string[] = [];

  afterAll(async () => {
    await cluster?.stop();
    dataDirs.forEach(removeTempDir);
  }, 90_000);

  it('kill -9 of the leader: only 503s with Retry-After, 201s by itself within 15 s of the promotion, every acknowledged transfer on the new leader exactly once, the audit passes', async () => {
    cluster = await startCluster();
    const adminUpiId = uniqueUpiId('admin');
    const dataDir = makeTempDir('payments-cluster-failover');
    dataDirs.push(dataDir);
    const service = await ServiceProcess.start(
      {
        DATABASE_URL: cluster.databaseUrl,
        DATABASE_OWNER_URL: cluster.ownerUrl,
        DATA_DIR: dataDir,
        JWT_SECRET: TEST_JWT_SECRET,
        RATE_LIMIT_PER_SECOND: '100000',
        ADMIN_UPI_IDS: adminUpiId,
      },
      90_000,
    );
    try {
      const api = new ApiClient(service.baseUrl);
      const admin = await api.registerUser({ upiId: adminUpiId, balance: 0 });
      const users = await Promise.all(
        Array.from({ length: USERS }, () => api.registerUser({ balance: OPENING_BALANCE })),
      );
      const load = new TransferLoad(api, users, WORKERS);
      // Kill once the stream is well under way, by count rather than by clock (the machine may be loaded).
      const acknowledged = () => load.attempts.filter((a) => a.status === 201).length;
      await waitUntil(() => acknowledged() >= 100, '100 acknowledged transfers before the kill', 60_000);

      const killedAt = Date.now();
      const killed = await cluster.killLeader();
      const promoted = await cluster.waitForNewLeader(killed, 60_000);
      const promotedAt = Date.now();
      await sleep(RECOVERY_MS + STEADY_MS);
      await load.stop();

      expect(service.child.exitCode).toBeNull(); // the same process throughout, never restarted
      expectNoServerErrors(load.attempts);
      const unacknowledged = load.attempts.filter((a) => a.status === undefined || a.status === 503);
      expect(unacknowledged.filter((a) => a.at >= killedAt).length).toBeGreaterThan(0); // the loss was felt
      const late = load.attempts.filter((a) => a.at >= promotedAt + RECOVERY_MS);
      expect(late.length).toBeGreaterThan(0);
      expect(late.filter((a) => a.status !== 201).map((a) => ({ at: a.at - promotedAt, status: a.status }))).toEqual(
        [],
      );

      await inLanes(WORKERS, unacknowledged, (attempt) => retryUntilAcknowledged(load, attempt));
      const leaderUrl = cluster.nodeOwnerUrl(promoted.name);
      const retried = await transactionCounts(
        leaderUrl,
        unacknowledged.map((a) => a.body!.referenceId),
      );
      expect(unacknowledged.filter((a) => retried.get(a.body!.referenceId) !== 1).map((a) => a.key)).toEqual([]);
      // Every 201 is on the promoted node with its amount, nothing else moved, the users' sum holds.
      await expectMoneyIntact(load, users, OPENING_BALANCE, leaderUrl);
      expect(await wholeLedgerViolations(leaderUrl)).toEqual([]); // the treasury included: all sums to 0

      const audit = await api.get('/api/v1/admin/audit', admin.token);
      expect(audit.status).toBe(200);
      expect(audit.body).toMatchObject({ ok: true, globalSum: 0, counts: { brokenEntries: 0, brokenAccounts: 0 } });
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 300_000);
});
