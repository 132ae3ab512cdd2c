import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import { Counter, Gauge, Registry } from 'prom-client';
import { EventPublisher, type OutboundEvent } from '../../src/outbox/event-publisher';
import { OutboxEventsRepository } from '../../src/outbox/outbox-events.repository';
import { OutboxRelay } from '../../src/outbox/outbox-relay.service';
import { createScratchDatabase } from '../support/db';

/** OutboxRelay over a real pool, on a database of its own: no other test's events are relayed. */
describe('OutboxRelay', () => {
  let scratch: { url: string; drop: () => Promise<void> };
  let pool: Pool;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    pool = new Pool({ connectionString: scratch.url, max: 2 });
  });
  afterAll(async () => {
    await pool.end();
    await scratch.drop();
  });

  it('relays outside the context of the request whose transfer nudged it', async () => {
    const requestContext = new AsyncLocalStorage<string>();
    const published: { eventId: string; context: string | undefined }[] = [];
    const publisher = new (class extends EventPublisher {
      async publish(events: OutboundEvent[]): Promise<void> {
        for (const event of events) published.push({ eventId: event.eventId, context: requestContext.getStore() });
      }
    })();
    const registry = new Registry();
    const metric = { help: 'test', registers: [registry] };
    const relay = new OutboxRelay(
      new OutboxEventsRepository(pool),
      publisher,
      new Gauge({ name: 'pending', ...metric }),
      new Gauge({ name: 'oldest', ...metric }),
      new Counter({ name: 'published', ...metric }),
      new Counter({ name: 'failures', ...metric }),
    );
    const eventId = randomUUID();
    await pool.query(
      `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload) VALUES ($1, 'TransferCompleted', 'alice@upi', '{}')`,
      [eventId],
    );
    requestContext.run('request-1', () => relay.nudge());
    await relay.drainNow();
    expect(published).toEqual([{ eventId, context: undefined }]);
    const { rows } = await pool.query(
      'SELECT published_at IS NOT NULL AS done FROM outbox_events WHERE event_id = $1',
      [eventId],
    );
    expect(rows).toEqual([{ done: true }]);
    await relay.onApplicationShutdown();
  });

  it("reads pending events by index alone, with a plan made while the day's partition was empty", async () => {
    // The plan settings that keep it so (docs/decisions/0011-generic-plans-for-key-lookups.md).
    const settings = await pool.query(`SELECT proconfig FROM pg_proc WHERE proname = 'outbox_pending'`);
    expect(settings.rows).toEqual([
      {
        proconfig: [
          'plan_cache_mode=force_generic_plan',
          'enable_seqscan=off',
          'enable_bitmapscan=off',
          'enable_sort=off',
        ],
      },
    ]);
    const relay = new Client({ connectionString: scratch.url });
    await relay.connect();
    try {
      // Planned, and cached for this session, while nothing is pending.
      for (let i = 0; i < 6; i++) expect((await relay.query('SELECT * FROM outbox_pending(100)')).rows).toEqual([]);
      await pool.query(
        `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload)
         SELECT gen_random_uuid(), 'Test', 'k', '{}' FROM generate_series(1, 2000)`,
      );
      const seqScans = async () => {
        await relay.query('SELECT pg_stat_force_next_flush()');
        await relay.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await relay.query<{ scans: string }>(
          `SELECT coalesce(sum(seq_scan), 0)::text AS scans FROM pg_stat_user_tables
           WHERE relname LIKE 'outbox_events_p%' OR relname LIKE 'transactions_p%'`,
        );
        return rows[0].scans;
      };
      const before = await seqScans();
      const pending = await relay.query<{ id: string }>('SELECT id FROM outbox_pending(10)');
      expect(pending.rows).toHaveLength(10);
      expect(pending.rows.map((row) => Number(row.id))).toEqual(
        [...pending.rows.map((row) => Number(row.id))].sort((a, b) => a - b),
      );
      expect(await seqScans()).toBe(before);
      // The mark, too, by the primary key, planned against the same young partition: a relay's
      // batch of 500 (a plain UPDATE read the whole partition for it).
      const marked = await relay.query<{ id: string; at: string }>(
        'SELECT id, created_at::text AS at FROM outbox_pending(500)',
      );
      const beforeMark = await seqScans();
      await relay.query('SELECT outbox_mark_published($1::bigint[], $2::timestamptz[])', [
        marked.rows.map((row) => row.id),
        marked.rows.map((row) => row.at),
      ]);
      expect(await seqScans()).toBe(beforeMark);
      const published = await relay.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM outbox_events WHERE event_type = 'Test' AND published_at IS NOT NULL",
      );
      expect(published.rows).toEqual([{ n: 500 }]);
    } finally {
      await relay.end();
    }
  });
});
