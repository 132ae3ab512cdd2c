import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';

/** The tables partitioned by created_at (docs/operations.md, "Partitions and retention"). */
export const PARTITIONED_TABLES = [
  'transactions',
  'ledger_entries',
  'outbox_events',
  'idempotency_keys',
  'webhook_deliveries',
] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];
export type ExpiringTable = Extract<PartitionedTable, 'idempotency_keys' | 'outbox_events' | 'webhook_deliveries'>;

/** pg_advisory_xact_lock key of the partitions job: one instance makes partitions at a time. */
const MAKER_LOCK_KEY = 7_241_041;

const LOCK_MAKER = 'SELECT pg_advisory_xact_lock($1)';
const TRY_LOCK_MAKER = 'SELECT pg_try_advisory_xact_lock($1) AS claimed';

// From one granule before the database clock's now to a few after: two months ahead for the
// monthly tables, three days for the daily ones. $1 the tables.
const ENSURE_AROUND_NOW = `
  SELECT coalesce(sum(ensure_partitions(t, now() - ('1 ' || partition_unit(t))::interval,
           now() + CASE partition_unit(t) WHEN 'month' THEN interval '2 months' ELSE interval '3 days' END)), 0)::int
         AS made
  FROM unnest($1::text[]) AS t`;

// $1 the table, $2 how long its rows are kept, in seconds (drop_expired_partitions.sql).
const DROP_EXPIRED = `SELECT drop_expired_partitions($1, make_interval(secs => $2)) AS dropped`;

/** Partitions: made ahead of the database clock, and dropped when their rows have expired. */
@Injectable()
export class PartitionsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Makes the partitions the database clock needs now and soon; returns how many it made, or
   * null when `wait` is false and another instance is at it (its run makes them).
   */
  ensureAroundNow(wait: boolean): Promise<number | null> {
    return inTransaction(this.pool, async (client) => {
      if (wait) {
        await client.query(LOCK_MAKER, [MAKER_LOCK_KEY]);
      } else {
        const { rows } = await client.query<{ claimed: boolean }>(TRY_LOCK_MAKER, [MAKER_LOCK_KEY]);
        if (!rows[0].claimed) return null;
      }
      const { rows } = await client.query<{ made: number }>(ENSURE_AROUND_NOW, [PARTITIONED_TABLES]);
      return rows[0].made;
    });
  }

  /** Drops the partitions of `table` whose rows are all older than `keepSeconds` and done with; returns how many. */
  async dropExpired(table: ExpiringTable, keepSeconds: number): Promise<number> {
    const { rows } = await this.pool.query<{ dropped: number }>(DROP_EXPIRED, [table, keepSeconds]);
    return rows[0].dropped;
  }
}
