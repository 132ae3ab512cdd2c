import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';
export const DELIVERY_STATUSES: DeliveryStatus[] = ['PENDING', 'DELIVERED', 'FAILED'];

export interface DeliveryRow {
  id: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

/** A delivery claimed for one attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  referenceId: string;
  endpointId: string;
  endpointReferenceId: string;
  url: string;
  secret: string;
  eventId: string;
  /** Null only if the event has left outbox_events, which nothing does while a delivery is pending. */
  payload: string | null;
  /** The number of this attempt (1 for the first), and the attempts made before this round. */
  attempts: number;
  roundStart: number;
  /** How long after it fell due this attempt was claimed, by the database's clock. */
  lateMs: number;
}

export interface AttemptRecord {
  id: string;
  attempts: number;
  statusCode: number | null;
  error: string | null;
  /** DELIVERED, PENDING again at nextAttemptAt, or FAILED for good. */
  outcome: DeliveryStatus;
  nextAttemptAt: Date | null;
}

export type RetryOutcome = 'retried' | 'already-pending' | 'not-found';

/**
 * Joined into the worker's claim and record statements: their transaction commits without
 * waiting for the WAL flush. Losing one in a PostgreSQL crash only sends an attempt again (a lost
 * claim leaves its row due; a lost result leaves it leased, then due): at least once still holds,
 * and the deliveries themselves commit with the money, synchronously. The worker then no longer
 * waits for two fsyncs per batch, and adds no flushes of its own to the transfers'.
 */
const ASYNC_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

/** The one way to webhook_deliveries: the admin's reads and retry, the worker's claim and results. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async listForEndpoint(endpointId: string, status: DeliveryStatus | undefined, limit: number): Promise<DeliveryRow[]> {
    const { rows } = await this.pool.query<DeliveryRow>(
      `SELECT d.reference_id AS id, d.event_id AS "eventId", d.event_type AS "eventType", d.status,
              d.attempts, d.last_attempt_at AS "lastAttemptAt", d.last_status_code AS "lastStatusCode",
              d.last_error AS "lastError",
              CASE WHEN d.status = 'PENDING' THEN d.next_attempt_at END AS "nextAttemptAt",
              d.created_at AS "createdAt"
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE e.reference_id = $1 AND ($2::text IS NULL OR d.status = $2)
       ORDER BY d.id DESC LIMIT $3`,
      [endpointId, status ?? null, limit],
    );
    return rows;
  }

  /**
   * A finished delivery (DELIVERED or FAILED) becomes due now, in a new round of the retry
   * schedule, and its endpoint is enabled again: the admin says the receiver is back. A PENDING
   * one is left alone, since an attempt may be running and must not be doubled.
   */
  async retry(endpointId: string, deliveryId: string): Promise<RetryOutcome> {
    const { rows } = await this.pool.query<{ outcome: RetryOutcome }>(
      `WITH target AS (
         SELECT d.id, d.status, d.endpoint_id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE e.reference_id = $1 AND d.reference_id = $2 FOR UPDATE OF d
       ), retried AS (
         UPDATE webhook_deliveries d SET status = 'PENDING', round_start = d.attempts, next_attempt_at = now(),
                finished_at = NULL
         FROM target t WHERE d.id = t.id AND t.status <> 'PENDING' RETURNING d.endpoint_id
       ), enabled AS (
         UPDATE webhook_endpoints e SET status = 'ENABLED' FROM retried r WHERE e.id = r.endpoint_id AND e.status <> 'ENABLED'
       )
       SELECT CASE WHEN status = 'PENDING' THEN 'already-pending' ELSE 'retried' END AS outcome FROM target`,
      [endpointId, deliveryId],
    );
    return rows[0]?.outcome ?? 'not-found';
  }

  /**
   * Claims due deliveries for one attempt each: at most `perEndpoint` minus what this process
   * already runs for an endpoint, at most `limit` in all. SKIP LOCKED lets every instance claim
   * at once without waiting or taking the same row; moving next_attempt_at to the end of a lease
   * keeps the row from being claimed again while the attempt runs, and makes it due again if
   * this process dies before recording the result (at-least-once). Moving it also takes the row
   * out of the head of the due index, which the next claim would otherwise walk past (a lease in
   * a column of its own would make the claim a HOT update, but every claim then re-reads every
   * row still in flight: measured, it cost more than it saved). The event JSON comes from the
   * outbox as published (outbox_messages(), in the partition of the delivery's created_at: the
   * fan-out copies the event's); a
   * delivery written before the 1764011000000 migration carries its own copy. Not a
   * prepared statement: its generic plan, blind to the limits, read several times more of the
   * due index per claim than a plan made for the values (measured: 3.3 ms against 1.1 ms).
   */
  async claimDue(
    busy: Map<string, number>,
    perEndpoint: number,
    limit: number,
    leaseMs: number,
  ): Promise<ClaimedDelivery[]> {
    const { rows } = await this.pool.query<ClaimedDelivery>({
      text: `WITH claimable AS (
         SELECT d.id, d.created_at, d.next_attempt_at
         FROM ${ASYNC_COMMIT}, webhook_endpoints e
         LEFT JOIN unnest($1::bigint[], $2::int[]) AS busy(endpoint_id, running) ON busy.endpoint_id = e.id
         CROSS JOIN LATERAL (
           SELECT id, created_at, next_attempt_at FROM webhook_deliveries
           WHERE endpoint_id = e.id AND status = 'PENDING' AND next_attempt_at <= now()
           ORDER BY next_attempt_at
           LIMIT greatest(0, $3 - coalesce(busy.running, 0))
           FOR UPDATE SKIP LOCKED
         ) d
         ORDER BY d.next_attempt_at
         LIMIT $4
       )
       UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1, last_attempt_at = now(), next_attempt_at = now() + $5 * interval '1 millisecond'
       FROM claimable c, webhook_endpoints e
       WHERE d.id = c.id AND d.created_at = c.created_at AND e.id = d.endpoint_id
       RETURNING d.id, d.reference_id AS "referenceId", e.id AS "endpointId", e.reference_id AS "endpointReferenceId",
                 e.url, e.secret, d.event_id AS "eventId",
                 coalesce(d.payload, (SELECT o.payload FROM outbox_messages() o
                                      WHERE o.id = d.outbox_event_id AND o.created_at = d.created_at)) AS payload,
                 d.attempts, d.round_start AS "roundStart",
                 (extract(epoch FROM now() - c.next_attempt_at) * 1000)::float8 AS "lateMs"`,
      values: [[...busy.keys()], [...busy.values()], perEndpoint, limit, leaseMs],
    });
    return rows;
  }

  /**
   * Records many attempts in one statement. Each row is matched on its attempt number, so the
   * result of an attempt whose lease ran out (and was claimed again) cannot overwrite a newer one.
   * A final failure disables its endpoint when nothing reached the endpoint since that event was
   * written: it has been down for the whole retry schedule. Returns the endpoints disabled.
   */
  async recordAttempts(records: AttemptRecord[]): Promise<string[]> {
    const { rows } = await this.pool.query<{ endpoint: string }>({
      name: 'webhook_record_attempts',
      text: `WITH results AS (
         SELECT r.* FROM ${ASYNC_COMMIT},
           unnest($1::bigint[], $2::int[], $3::int[], $4::text[], $5::text[], $6::timestamptz[])
             AS r(id, attempts, status_code, error, outcome, next_attempt_at)
       ), updated AS (
         UPDATE webhook_deliveries d
         SET status = r.outcome, last_status_code = r.status_code, last_error = left(r.error, 200),
             next_attempt_at = coalesce(r.next_attempt_at, d.next_attempt_at),
             finished_at = CASE WHEN r.outcome = 'PENDING' THEN NULL ELSE now() END
         FROM results r
         -- NOT IN rather than = 'PENDING': the planner must find these rows by id, never by walking
         -- the pending-only due index, which it may think small while a backlog is piling up.
         WHERE d.id = ANY($1::bigint[]) AND d.id = r.id AND d.attempts = r.attempts
           AND d.status NOT IN ('DELIVERED', 'FAILED')
         RETURNING d.endpoint_id, d.status, d.created_at
       ), delivered AS (
         UPDATE webhook_endpoints e SET last_delivered_at = now()
         FROM (SELECT DISTINCT endpoint_id FROM updated WHERE status = 'DELIVERED') u
         WHERE e.id = u.endpoint_id AND (e.last_delivered_at IS NULL OR e.last_delivered_at < now() - interval '5 seconds')
       ), disabled AS (
         UPDATE webhook_endpoints e SET status = 'DISABLED'
         FROM (SELECT endpoint_id, min(created_at) AS since FROM updated WHERE status = 'FAILED' GROUP BY endpoint_id) f
         WHERE e.id = f.endpoint_id AND e.status = 'ENABLED'
           AND (e.last_delivered_at IS NULL OR e.last_delivered_at < f.since)
           AND NOT EXISTS (SELECT 1 FROM updated u WHERE u.endpoint_id = e.id AND u.status = 'DELIVERED')
         RETURNING e.reference_id
       )
       SELECT reference_id AS endpoint FROM disabled`,
      values: [
        records.map((r) => r.id),
        records.map((r) => r.attempts),
        records.map((r) => r.statusCode),
        records.map((r) => r.error),
        records.map((r) => r.outcome),
        records.map((r) => r.nextAttemptAt),
      ],
    });
    return rows.map((row) => row.endpoint);
  }

  /**
   * Deletes the deliveries of a deleted endpoint (a fan-out that raced the delete), a bounded batch
   * at a time; returns how many. A handful of rows, not the retention: that drops partitions.
   */
  async purgeOrphans(batch: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      // The endpoints that have deliveries, found by skipping through the (endpoint_id, id) index.
      `WITH RECURSIVE endpoint_ids AS (
         (SELECT endpoint_id FROM webhook_deliveries ORDER BY endpoint_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.endpoint_id > endpoint_ids.endpoint_id
                 ORDER BY d.endpoint_id LIMIT 1)
         FROM endpoint_ids WHERE endpoint_ids.endpoint_id IS NOT NULL
       ), gone AS (
         SELECT endpoint_id FROM endpoint_ids
         WHERE endpoint_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = endpoint_id)
       )
       DELETE FROM webhook_deliveries WHERE (id, created_at) IN (
         SELECT id, created_at FROM webhook_deliveries WHERE endpoint_id IN (SELECT endpoint_id FROM gone) LIMIT $1)`,
      [batch],
    );
    return rowCount ?? 0;
  }

  /**
   * How many deliveries were ever written, by every instance: the identity sequence's last value,
   * read in O(1) without touching the table. Its growth is the rate deliveries arrive at.
   */
  async deliveriesWritten(): Promise<number> {
    const { rows } = await this.pool.query<{ written: string | null }>({
      name: 'webhook_deliveries_written',
      text: `SELECT pg_sequence_last_value(pg_get_serial_sequence('webhook_deliveries', 'id')::regclass) AS written`,
    });
    return Number(rows[0].written ?? 0);
  }

  /** Per endpoint: its status and the age in seconds of its oldest pending delivery (0 when none). */
  async endpointBacklog(): Promise<{ endpoint: string; status: string; oldestAgeSeconds: number }[]> {
    const { rows } = await this.pool.query<{ endpoint: string; status: string; oldestAgeSeconds: number }>(
      `SELECT e.reference_id AS endpoint, e.status,
              coalesce(extract(epoch FROM now() - (
                SELECT min(d.created_at) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'PENDING'
              )), 0)::float8 AS "oldestAgeSeconds"
       FROM webhook_endpoints e`,
    );
    return rows;
  }
}
