import { Inject, Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';
import type { OutboundEvent } from './event-publisher';

/** pg_try_advisory_xact_lock key: one relay at a time across all instances, so per-sender order holds. */
const RELAY_LOCK_KEY = 7_240_001;

// Named (prepared once per connection): the relay runs it many times a second under load.
const TRY_LEAD = { name: 'outbox_try_lead', text: 'SELECT pg_try_advisory_xact_lock($1) AS leader' };
// Named: the function's own plan is fixed (sql/outbox_pending.sql); key and payload as published.
const FIND_PENDING = {
  name: 'outbox_find_pending',
  text: `SELECT id, created_at AS "createdAt", event_id AS "eventId", event_type AS "eventType", aggregate_key AS "key",
                payload
         FROM outbox_pending($1)`,
};
// By the primary key (sql/outbox_mark_published.sql); created_at as text (a Date would lose its
// microseconds) lets the plan touch only the partitions the rows are in.
const MARK_PUBLISHED = {
  name: 'outbox_mark_published',
  text: 'SELECT outbox_mark_published($1::bigint[], $2::timestamptz[])',
};
const PENDING_STATS = `
  SELECT count(*)::int AS pending, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age
  FROM outbox_events WHERE published_at IS NULL`;

export type PendingEvent = OutboundEvent & { id: string; createdAt: string };

/** The relay's side of one relay transaction: what is pending, and marking it published. */
export interface RelayTransaction {
  findPending(limit: number): Promise<PendingEvent[]>;
  markPublished(events: readonly PendingEvent[]): Promise<void>;
}

/**
 * outbox_events: written only by the movements' SQL functions (one row per completed transfer, in
 * the money's transaction); read (through outbox_messages()) and marked here by the relay, the
 * table's one other writer.
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
    markPublished: async (events) =>
      void (await client.query({
        ...MARK_PUBLISHED,
        values: [events.map((e) => e.id), events.map((e) => e.createdAt)],
      })),
  };
}
