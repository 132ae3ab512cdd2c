import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';
import type { PaymentRequestRecord, PaymentRequestStatus } from './payment-request.dto';

/** The status a reader sees: an OPEN request past its expiry is EXPIRED (nothing stores that). */
const COLUMNS = `r.id::text AS id, r.reference_id AS "referenceId", r.payee_upi_id AS "payeeUpiId",
  r.payee_name AS "payeeName", r.amount::text AS amount, r.note,
  CASE WHEN r.status = 'OPEN' AND r.expires_at <= clock_timestamp() THEN 'EXPIRED' ELSE r.status END AS status,
  r.created_at AS "createdAt", r.expires_at AS "expiresAt", r.paid_at AS "paidAt",
  r.transaction_reference_id AS "transactionReferenceId"`;

/** The stored condition of each status a reader can ask for. */
const STATUS_FILTERS: Record<PaymentRequestStatus, string> = {
  OPEN: `r.status = 'OPEN' AND r.expires_at > clock_timestamp()`,
  EXPIRED: `r.status = 'OPEN' AND r.expires_at <= clock_timestamp()`,
  PAID: `r.status = 'PAID'`,
  CANCELLED: `r.status = 'CANCELLED'`,
};

export type PaymentRequestRow = PaymentRequestRecord & { id: string };

/** payment_requests. Paying one is not here: the transfer functions do it (sql/payment_request_settle.sql). */
@Injectable()
export class PaymentRequestsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * A new OPEN request, unless the payee already holds `openMax` unexpired ones (`limitReached`,
   * with the earliest of their expiries: when a slot frees at the latest) or is gone (null). One
   * payee's creations take turns on an advisory lock, so two racing at the cap cannot both pass.
   */
  async create(
    payeeReferenceId: string,
    request: { referenceId: string; amount: string | null; note: string | null; expiresInSeconds: number },
    openMax: number,
  ): Promise<PaymentRequestRow | { limitReached: { nextExpiresAt: Date } } | null> {
    return inTransaction(this.pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('payment-request-create/' || $1, 0))`, [
        payeeReferenceId,
      ]);
      // Read after the lock: this statement's snapshot sees every creation that held it before.
      const { rows } = await client.query<PaymentRequestRow>(
        `WITH r AS (
           INSERT INTO payment_requests (reference_id, payee_id, payee_upi_id, payee_name, amount, note, created_at, expires_at)
           SELECT $2, u.id, u.upi_id, u.name, $3, $4, t.now, t.now + make_interval(secs => $5)
           FROM users u, (SELECT date_trunc('milliseconds', clock_timestamp()) AS now) t
           WHERE u.reference_id = $1
             AND (SELECT count(*) FROM payment_requests o
                  WHERE o.payee_id = u.id AND o.status = 'OPEN' AND o.expires_at > t.now) < $6
           RETURNING *)
         SELECT ${COLUMNS} FROM r`,
        [payeeReferenceId, request.referenceId, request.amount, request.note, request.expiresInSeconds, openMax],
      );
      if (rows[0]) return rows[0];
      // The payee's row, if any, with the earliest expiry of their open requests (none: one just freed).
      const payee = await client.query<{ nextExpiresAt: Date | null }>(
        `SELECT min(o.expires_at) AS "nextExpiresAt" FROM users u
         LEFT JOIN payment_requests o ON o.payee_id = u.id AND o.status = 'OPEN' AND o.expires_at > clock_timestamp()
         WHERE u.reference_id = $1 GROUP BY u.id`,
        [payeeReferenceId],
      );
      if (payee.rows.length === 0) return null;
      return { limitReached: { nextExpiresAt: payee.rows[0].nextExpiresAt ?? new Date() } };
    });
  }

  async find(referenceId: string): Promise<PaymentRequestRow | null> {
    const { rows } = await this.pool.query<PaymentRequestRow>(
      `SELECT ${COLUMNS} FROM payment_requests r WHERE r.reference_id = $1`,
      [referenceId],
    );
    return rows[0] ?? null;
  }

  /** Cancels an OPEN, unexpired request of this payee; null when it is not one (the caller says why). */
  async cancel(referenceId: string, payeeUpiId: string): Promise<PaymentRequestRow | null> {
    const { rows } = await this.pool.query<PaymentRequestRow>(
      `WITH r AS (
         UPDATE payment_requests SET status = 'CANCELLED'
         WHERE reference_id = $1 AND lower(payee_upi_id) = lower($2) AND status = 'OPEN' AND expires_at > clock_timestamp()
         RETURNING *)
       SELECT ${COLUMNS} FROM r`,
      [referenceId, payeeUpiId],
    );
    return rows[0] ?? null;
  }

  /** The payee's requests, newest first, after the request with internal id afterId; size + 1 rows at most. */
  async listOf(
    payeeReferenceId: string,
    options: { status?: PaymentRequestStatus; afterId?: string; take: number; offset?: number },
  ): Promise<PaymentRequestRow[]> {
    const filter = options.status ? `AND ${STATUS_FILTERS[options.status]}` : '';
    const after = options.afterId ? 'AND r.id < $3' : 'AND $3::bigint IS NULL';
    const { rows } = await this.pool.query<PaymentRequestRow>(
      `SELECT ${COLUMNS} FROM payment_requests r
       WHERE r.payee_id = (SELECT u.id FROM users u WHERE u.reference_id = $1) ${filter} ${after}
       ORDER BY r.id DESC LIMIT $2 OFFSET $4`,
      [payeeReferenceId, options.take, options.afterId ?? null, options.offset ?? 0],
    );
    return rows;
  }

  async count(payeeReferenceId: string, status?: PaymentRequestStatus): Promise<number> {
    const filter = status ? `AND ${STATUS_FILTERS[status]}` : '';
    const { rows } = await this.pool.query<{ total: string }>(
      `SELECT count(*) AS total FROM payment_requests r
       WHERE r.payee_id = (SELECT u.id FROM users u WHERE u.reference_id = $1) ${filter}`,
      [payeeReferenceId],
    );
    return Number(rows[0].total);
  }
}
