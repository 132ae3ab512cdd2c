import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { RelayHealth } from '../../src/outbox/relay-state';
import type { RegisteredUser } from '../support/api-client';
import { withScratchDatabase } from '../support/db';
import { TestBroker, TopicReader } from '../support/kafka';
import { startTestApp } from '../support/test-app';
import { uniqueUpiId } from '../support/api-client';
import { waitUntil } from '../support/wait';

const OUTAGE_MS = 30_000;
const WORKERS = 4;
const PAUSE_MS = 25;

/**
 * Issue 21.5: the broker goes away for 30 s while clients keep transferring, on a scratch
 * database and a topic of its own. The broker is stopped and started in the background, so the
 * service in this process keeps serving and its relay keeps trying throughout.
 */
describe('a Kafka outage under load', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await TestBroker.start();
  }, 240_000);
  afterAll(() => broker.dispose());

  it('keeps every transfer at 201 and readiness UP, shows the outage to an admin, and publishes within 5 s of the broker\u2019s return', async () => {
    if (!broker.controllable) throw new Error('this test needs its own broker: unset KAFKA_TEST_BROKERS');
    await withScratchDatabase(async (url) => {
      const topic = `transfers-${randomUUID()}`;
      const adminUpiId = uniqueUpiId('admin');
      const t = await startTestApp({
        DATABASE_URL: url,
        KAFKA_BROKERS: broker.brokers,
        KAFKA_TOPIC: topic,
        RATE_LIMIT_PER_SECOND: '1000',
        ADMIN_UPI_IDS: adminUpiId,
      });
      const db = new Client({ connectionString: url });
      await db.connect();
      let reader: TopicReader | undefined;
      let loading = false;
      let workers: Promise<void>[] = [];
      try {
        const admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
        const kafka = async () => {
          const response = await t.api.get('/actuator/health', admin.token);
          return response.body.components.kafka as RelayHealth;
        };
        const pending = async () =>
          (await db.query('SELECT count(*)::int AS n FROM outbox_events WHERE NOT outbox_published(xid, id)')).rows[0]
            .n;
        const accounts = await Promise.all(
          Array.from({ length: 2 * WORKERS }, () => t.api.registerUser({ balance: 100_000 })),
        );
        expect((await t.api.transfer(accounts[0], accounts[1].upiId, 1)).status).toBe(201);
        await waitUntil(async () => (await pending()) === 0, 'the first event to be published', 60_000);
        expect((await kafka()).status).toBe('UP');

        // Load: each worker pays its partner in a loop, until told to stop, at up to about
        // 150 transfers/s in all (the soak rate): enough to keep the relay busy, not so
        // much that the test files running beside this one starve.
        const statuses = new Map<number, number>();
        const references: string[] = [];
        loading = true;
        const worker = async (payer: RegisteredUser, payee: RegisteredUser) => {
          while (loading) {
            const response = await t.api.transfer(payer, payee.upiId, 1);
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            if (response.status === 201) references.push(response.body.referenceId);
            await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
          }
        };
        workers = Array.from({ length: WORKERS }, (_, i) => worker(accounts[2 * i], accounts[2 * i + 1]));

        const stoppingAt = Date.now();
        await broker.stopInBackground();
        const stoppedAt = Date.now();
        await waitUntil(
          async () => (await kafka()).status === 'DOWN',
          'the kafka component to show the outage',
          20_000,
        );
        // Let the outage age the backlog, then look at it as an admin, an anonymous caller and a probe.
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - 5000 - (Date.now() - stoppedAt))));
        const during = await kafka();
        expect(during.details).toMatchObject({ brokers: broker.brokers.split(','), affectsReadiness: false });
        expect(during.details.pendingEvents).toBeGreaterThan(0);
        expect(during.details.oldestPendingAgeSeconds).toBeGreaterThan(10);
        expect(during.details.consecutiveFailures).toBeGreaterThan(0);
        expect(during.details.lastError).toEqual(expect.any(String));
        expect(Date.parse(during.details.failingSince!)).toBeGreaterThanOrEqual(stoppingAt);
        const readiness = await t.api.get('/actuator/health/readiness');
        expect([readiness.status, readiness.body]).toEqual([200, { status: 'UP' }]);
        expect((await t.api.get('/actuator/health')).body).toEqual({ status: 'UP' });
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));

        const backlog = await pending();
        expect(backlog).toBeGreaterThan(0);
        const published = async () =>
          (await db.query('SELECT count(*)::int AS n FROM outbox_events WHERE outbox_published(xid, id)')).rows[0].n;
        const publishedBefore = await published();
        await broker.restartInBackground();
        const returnedAt = Date.now();
        // "Resumes": the first event marked published after the return. Checked every 50 ms, under load.
        await waitUntil(async () => (await published()) > publishedBefore, 'publishing to resume', 60_000);
        const resumedAfterMs = Date.now() - returnedAt;
        loading = false;
        await Promise.all(workers);

        expect(resumedAfterMs).toBeLessThan(5000);
        expect([...statuses.keys()]).toEqual([201]);
        expect(references.length).toBeGreaterThan(WORKERS);
        await waitUntil(async () => (await pending()) === 0, 'the backlog to drain', 60_000);
        // The component's counts come from the relay's gauges, refreshed every second.
        await waitUntil(
          async () => {
            const component = await kafka();
            return component.status === 'UP' && component.details.pendingEvents === 0;
          },
          'the kafka component to recover',
          10_000,
        );
        const after = await kafka();
        expect(after.details).toMatchObject({
          pendingEvents: 0,
          consecutiveFailures: 0,
          failingSince: null,
          lastError: null,
        });
        expect(Date.parse(after.details.lastPublishedAt!)).toBeGreaterThanOrEqual(returnedAt);

        reader = await TopicReader.open(broker.brokers, topic);
        const wanted = new Set(references);
        await reader.waitFor(
          (all) => new Set(all.map((r) => r.value.transactionReferenceId)).size >= wanted.size + 1,
          120_000,
        );
        const seen = new Set(reader.records.map((r) => r.value.transactionReferenceId as string));
        expect(references.filter((ref) => !seen.has(ref))).toEqual([]);
      } finally {
        loading = false;
        await Promise.allSettled(workers);
        await reader?.close().catch(() => undefined);
        await t.close();
        await db.end();
      }
    });
  }, 360_000);
});
