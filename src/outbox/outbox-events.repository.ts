import { Inject, Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';
import type { OutboundEvent } from './event-publisher';

/** pg_try_advisory_xact_lock key: one relay at a time across all instances, so per-sender order holds. */
const RELAY_LOCK_KEY = 7_240_001;

// Named (prepared once per connection): the relay runs it many times a second under load.
const TRY_LEAD = { name: 'outbox_try_lead', text: 'SELECT pg_try_advisory_xact_lock($1) AS leader' };
// Named: the function's own plans are fixed (sql/outbox_pending.sql); key and payload as published.
const FIND_PENDING = {
  name: 'outbox_find_pending',
  text: `SELECT id, event_id AS "eventId", event_type AS "eventType", aggregate_key AS "key", payload
         FROM outbox_pending($1)`,
};
// The relay's place moves past what it published (sql/outbox_mark_published.sql).
const MARK_PUBLISHED = { name: 'outbox_mark_published', text: 'SELECT outbox_mark_published($1, $2)' };
// What the relay's place has not passed yet (sql/outbox_backlog.sql).
const PENDING_STATS = 'SELECT pending, oldest_age_seconds AS age FROM outbox_backlog()';

export type PendingEvent = OutboundEvent & { id: string };

/** The relay's side of one relay transaction: what is pending, and moving its place past it. */
export interface RelayTransaction {
  findPending(limit: number): Promise<PendingEvent[]>;
  /** `events` as findPending(limit) returned them, in order; fewer than `limit` ends the batch. */
  markPublished(events: readonly PendingEvent[], limit: number): Promise<void>;
}

/**
 * outbox_events: written only by the movements' SQL functions (one row per completed transfer, in
 * the money's transaction); read (through outbox_messages()) by the relay, which keeps its place
 * in outbox_relay_position (sql/outbox_pending.sql), and never writes an event.
 */
@Injectable()
export class OutboxEventsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * `work` in one transaction holding the relay lock; undefined, at once, when another instance
   * holds it (that one relays these rows, in order).
   */
  asRelay<T>(work: (relay: RelayTransaction) => Promise<T>): Promise<T | undefined> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ leader: boolean }>({ ...TRY_LEAD, values: [RELAY_LOCK_KEY] });
      return rows[0].leader ? work(relayTransaction(client)) : undefined;
    });
  }

  async pendingStats(): Promise<{ pending: number; age: number }> {
    const { rows } = await this.pool.query<{ pending: number; age: number }>(PENDING_STATS);
    return rows[0];
  }
}

function relayTransaction(client: PoolClient): RelayTransaction {
  return {
    findPending: async (limit) => (await client.query<PendingEvent>({ ...FIND_PENDING, values: [limit] })).rows,
    markPublished: async (events, limit) =>
      void (await client.query({ ...MARK_PUBLISHED, values: [events[events.length - 1].id, events.length < limit] })),
  };
}
