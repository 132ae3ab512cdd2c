import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { EventPublisher } from '../../src/outbox/event-publisher';
import { consumerGroup } from '../../src/outbox/kafka-options';
import { OutboxRelay } from '../../src/outbox/outbox-relay.service';
import type { RegisteredUser } from '../support/api-client';
import { withScratchDatabase } from '../support/db';
import { FakeAiModel } from '../support/fake-ai-model';
import { TestBroker, TopicReader } from '../support/kafka';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

/**
 * Against a real Apache Kafka broker. Each test runs on its own scratch database, so no other
 * test's relay (light mode, same process) can take these outbox rows, and on its own topic.
 * Time limits are generous: a broker and its consumer groups are slow on a loaded machine.
 */
describe('transfer events on Kafka', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await TestBroker.start();
  }, 240_000);
  afterAll(() => broker.dispose());

  interface Cluster {
    apps: TestApp[];
    topic: string;
    db: Client;
    reader: () => Promise<TopicReader>;
  }

  /** Fresh database, fresh topic, `instances` service instances with their relays, and a reader. */
  async function withCluster(
    instances: number,
    work: (cluster: Cluster) => Promise<void>,
    extraEnv: Record<string, string> = {},
  ): Promise<void> {
    await withScratchDatabase(async (url) => {
      const topic = `transfers-${randomUUID()}`;
      const env = {
        DATABASE_URL: url,
        KAFKA_BROKERS: broker.brokers,
        KAFKA_TOPIC: topic,
        RATE_LIMIT_PER_SECOND: '1000',
        ...extraEnv,
      };
      const apps: TestApp[] = [];
      const readers: TopicReader[] = [];
      const db = new Client({ connectionString: url });
      await db.connect();
      try {
        for (let i = 0; i < instances; i++) apps.push(await startTestApp(env));
        const reader = async () => {
          const opened = await TopicReader.open(broker.brokers, topic);
          readers.push(opened);
          return opened;
        };
        await work({ apps, topic, db, reader });
      } finally {
        await Promise.all(readers.map((r) => r.close().catch(() => undefined)));
        await Promise.all(apps.map((app) => app.close()));
        await db.end();
      }
    });
  }

  const users = (t: TestApp, count: number, balance = 1000) =>
    Promise.all(Array.from({ length: count }, () => t.api.registerUser({ balance })));

  async function pending(db: Client): Promise<number> {
    const result = await db.query('SELECT count(*)::int AS n FROM outbox_events WHERE NOT outbox_published(xid, id)');
    return result.rows[0].n;
  }

  it('publishes one record per transfer, keyed by the sender, with the event headers and payload', async () => {
    await withCluster(1, async ({ apps: [t], reader }) => {
      const [alice, bob] = await users(t, 2);
      const response = await t.api.transfer(alice, bob.upiId, '42.5', { note: 'groceries' });
      expect(response.status).toBe(201);
      const records = await reader();
      await records.waitFor((all) => all.length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // nothing more arrives
      expect(records.records).toHaveLength(1);
      const [record] = records.records;
      expect(record.key).toBe(alice.upiId);
      expect(record.headers).toEqual({ eventId: record.value.eventId, eventType: 'TransferCompleted' });
      expect(record.value).toEqual({
        eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        eventType: 'TransferCompleted',
        occurredAt: response.body.createdAt,
        transactionId: response.body.transactionId,
        transactionReferenceId: response.body.referenceId,
        senderUpiId: alice.upiId,
        receiverUpiId: bob.upiId,
        amount: '42.5000',
        currency: 'INR',
        note: 'groceries',
      });
    });
  }, 120_000);

  it("keeps one sender's events in order, and publishes none for an insufficient-balance transfer", async () => {
    await withCluster(1, async ({ apps: [t], reader }) => {
      const [alice, ...others] = await users(t, 4);
      const sent: string[] = [];
      for (let i = 0; i < 12; i++) {
        const response = await t.api.transfer(alice, others[i % others.length].upiId, i + 1);
        expect(response.status).toBe(201);
        sent.push(response.body.referenceId);
      }
      const refused = await t.api.transfer(alice, others[0].upiId, '999999');
      expect(refused.status).toBe(422);
      const last = await t.api.transfer(others[0], alice.upiId, 1);
      const records = await reader();
      // Alice's events and the last one sit on different partitions, read in no fixed order: wait for all.
      const expected = [...sent, last.body.referenceId as string];
      await records.waitFor((all) => expected.every((ref) => all.some((r) => r.value.transactionReferenceId === ref)));
      const alices = records.records.filter((r) => r.key === alice.upiId);
      expect(alices.map((r) => r.value.transactionReferenceId)).toEqual(sent);
      expect(new Set(alices.map((r) => r.partition)).size).toBe(1);
      expect(records.records.filter((r) => r.value.amount === '999999.0000')).toEqual([]);
      expect(records.records).toHaveLength(13);
    });
  }, 120_000);

  it('keeps answering 201 while the broker is down, and delivers every pending event when it is back', async () => {
    if (!broker.controllable) throw new Error('this test needs its own broker: unset KAFKA_TEST_BROKERS');
    await withCluster(1, async ({ apps: [t], db, reader }) => {
      const [alice, bob] = await users(t, 2);
      expect((await t.api.transfer(alice, bob.upiId, 1)).status).toBe(201);
      const before = await reader();
      await before.waitFor((all) => all.length === 1);
      await before.close();

      broker.stop();
      const during: string[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        const response = await t.api.transfer(alice, bob.upiId, 2 + i);
        expect(response.status).toBe(201);
        // A generous bound for a loaded machine; the pending rows below show that nothing waited for the broker.
        expect(Date.now() - started).toBeLessThan(5000);
        during.push(response.body.referenceId);
      }
      expect(await pending(db)).toBe(5);
      const metrics = await t.api.get('/actuator/prometheus');
      expect(metrics.text).toMatch(/payments_outbox_publish_failures_total \d+/);

      broker.restart();
      const after = await reader();
      await after.waitFor(
        (all) => during.every((ref) => all.some((r) => r.value.transactionReferenceId === ref)),
        60_000,
      );
      expect(await pending(db)).toBe(0);
    });
  }, 120_000);

  it('republishes after a crash between the ack and the mark; consumers deduplicate by transactionReferenceId', async () => {
    await withCluster(1, async ({ apps: [t], db, reader }) => {
      const [alice, bob] = await users(t, 2);
      const relay = t.app.get(OutboxRelay);
      const publisher = t.app.get(EventPublisher);
      const publish = publisher.publish.bind(publisher);
      // The process "dies" right after the broker acknowledged: the marking transaction never commits.
      publisher.publish = async (events) => {
        await publish(events);
        throw new Error('killed after the ack, before the mark');
      };
      const response = await t.api.transfer(alice, bob.upiId, 7);
      const records = await reader();
      await records.waitFor((all) => all.length >= 1);
      expect(await pending(db)).toBe(1);

      publisher.publish = publish; // "restarted"
      await relay.drainNow();
      await records.waitFor((all) => all.length >= 2);
      expect(await pending(db)).toBe(0);
      expect(records.for(response.body.referenceId).length).toBeGreaterThanOrEqual(2);
      const deduplicated = new Map(records.records.map((r) => [r.value.transactionReferenceId, r.value]));
      expect([...deduplicated.keys()]).toEqual([response.body.referenceId]);
    });
  }, 120_000);

  /** Offsets the service's consumer group has committed on the topic, summed over its partitions. */
  async function consumedOffsets(topic: string): Promise<number> {
    const admin = new Kafka({
      clientId: 'test-admin',
      brokers: broker.brokers.split(','),
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    try {
      const [offsets] = await admin.fetchOffsets({ groupId: consumerGroup(topic), topics: [topic] });
      return offsets.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
    } finally {
      await admin.disconnect();
    }
  }

  it('classifies each completed transfer from the topic, so asking for its insight is a read', async () => {
    const model = await new FakeAiModel().start();
    try {
      await withCluster(
        1,
        async ({ apps: [t], topic, db }) => {
          const [alice, bob] = await users(t, 2);
          const response = await t.api.transfer(alice, bob.upiId, 42, { note: 'Swiggy dinner' });
          expect(response.status).toBe(201);
          await waitUntil(() => consumedOffsets(topic).then((n) => n === 1), "the consumer group's commit", 90_000);
          const stored = await db.query(
            'SELECT i.source FROM transaction_insights i JOIN transactions t ON t.id = i.transaction_id WHERE t.reference_id = $1',
            [response.body.referenceId],
          );
          expect(stored.rows).toEqual([{ source: 'AI_MODEL' }]);
          expect(model.calls).toHaveLength(1);
          const insight = await t.api.request('POST', `/api/v1/transactions/${response.body.referenceId}/insights`, {
            token: bob.token,
          });
          expect(insight.status).toBe(200);
          expect(insight.body).toEqual(
            expect.objectContaining({
              transactionReferenceId: response.body.referenceId,
              category: 'SHOPPING',
              source: 'AI_MODEL',
            }),
          );
          expect(model.calls).toHaveLength(1);
        },
        { AI_BASE_URL: `${model.url}/v1` },
      );
    } finally {
      await model.stop();
    }
  }, 180_000);

  it('delivers every event exactly once with two service instances relaying from one database', async () => {
    await withCluster(2, async ({ apps, db, reader }) => {
      const people: RegisteredUser[] = await users(apps[0], 6, 10_000);
      const refs: string[] = [];
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const app = apps[i % 2];
          const sender = people[i % people.length];
          const response = await app.api.transfer(sender, people[(i + 1) % people.length].upiId, 1 + i);
          expect(response.status).toBe(201);
          refs.push(response.body.referenceId);
        }),
      );
      const records = await reader();
      await records.waitFor((all) => refs.every((ref) => all.some((r) => r.value.transactionReferenceId === ref)));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(records.records).toHaveLength(40);
      expect(new Set(records.records.map((r) => r.value.transactionReferenceId)).size).toBe(40);
      expect(await pending(db)).toBe(0);
    });
  }, 120_000);
});
