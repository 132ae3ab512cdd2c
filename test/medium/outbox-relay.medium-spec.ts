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

  /** A relay over the pool whose publisher records what it was given, with the async context it ran in. */
  function recordingRelay(requestContext = new AsyncLocalStorage<string>()) {
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
    return { relay, published, ids: () => published.map((event) => event.eventId) };
  }
  const insertEvent = (db: Pool | Client, eventId: string) =>
    db.query(
      `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload) VALUES ($1, 'Late', 'k', '{}')
       RETURNING id`,
      [eventId],
    );

  it('relays outside the context of the request whose transfer nudged it', async () => {
    const requestContext = new AsyncLocalStorage<string>();
    const { relay, published } = recordingRelay(requestContext);
    const eventId = randomUUID();
    await pool.query(
      `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload) VALUES ($1, 'TransferCompleted', 'alice@upi', '{}')`,
      [eventId],
    );
    requestContext.run('request-1', () => relay.nudge());
    await relay.drainNow();
    expect(published).toEqual([{ eventId, context: undefined }]);
    const { rows } = await pool.query(
      'SELECT outbox_published(xid, id) AS done FROM outbox_events WHERE event_id = $1',
      [eventId],
    );
    expect(rows).toEqual([{ done: true }]);
    await relay.onApplicationShutdown();
  });

  it('publishes an event whose transaction commits late after the ones committed before it, and loses none', async () => {
    const { relay, ids } = recordingRelay();
    const late = new Client({ connectionString: scratch.url });
    await late.connect();
    try {
      const [lateId, earlyId] = [randomUUID(), randomUUID()];
      await late.query('BEGIN');
      const lateRow = await insertEvent(late, lateId);
      const earlyRow = await insertEvent(pool, earlyId);
      expect(BigInt(lateRow.rows[0].id)).toBeLessThan(BigInt(earlyRow.rows[0].id));
      await relay.drainNow();
      expect(ids()).toEqual([earlyId]);
      await late.query('COMMIT');
      await relay.drainNow();
      expect(ids()).toEqual([earlyId, lateId]);
      await relay.drainNow();
      expect(ids()).toEqual([earlyId, lateId]);
    } finally {
      await late.end();
      await relay.onApplicationShutdown();
    }
  });

  it('publishes a backlog larger than one read in id order, each event once', async () => {
    const { relay, ids } = recordingRelay();
    await pool.query(
      `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload)
       SELECT gen_random_uuid(), 'Backlog', 'k', '{}' FROM generate_series(1, 1234)`,
    );
    const { rows } = await pool.query<{ event_id: string }>(
      `SELECT event_id FROM outbox_events WHERE event_type = 'Backlog' ORDER BY id`,
    );
    await relay.drainNow();
    expect(ids()).toEqual(rows.map((row) => row.event_id));
    const pending = await pool.query(
      `SELECT count(*)::int AS n FROM outbox_events WHERE event_type = 'Backlog' AND NOT outbox_published(xid, id)`,
    );
    expect(pending.rows).toEqual([{ n: 0 }]);
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
      for (let i = 0; i < 6; i++) {
        expect((await relay.query('SELECT * FROM outbox_pending(100)')).rows).toEqual([]);
        expect((await relay.query('SELECT pending FROM outbox_backlog()')).rows).toEqual([{ pending: 0 }]);
      }
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
      // The mark, too, planned against the same young partition: a relay's batch of 500.
      const marked = await relay.query<{ id: string }>('SELECT id FROM outbox_pending(500)');
      const beforeMark = await seqScans();
      await relay.query('SELECT outbox_mark_published($1, $2)', [marked.rows[marked.rows.length - 1].id, false]);
      expect(await seqScans()).toBe(beforeMark);
      const published = await relay.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM outbox_events WHERE event_type = 'Test' AND outbox_published(xid, id)",
      );
      expect(published.rows).toEqual([{ n: 500 }]);
      // The gauges' count of what is left, planned on the same young partition: by index too.
      const beforeBacklog = await seqScans();
      expect((await relay.query('SELECT pending FROM outbox_backlog()')).rows).toEqual([{ pending: 1500 }]);
      expect(await seqScans()).toBe(beforeBacklog);
    } finally {
      await relay.end();
    }
  });
});
