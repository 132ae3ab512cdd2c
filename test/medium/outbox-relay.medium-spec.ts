import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
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
});
