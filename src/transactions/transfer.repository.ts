import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';

export interface TransferCall {
  owner: string;
  idempotencyKey: string;
  requestHash: string;
  senderUpiId: string;
  receiverUpiId: string;
  amount: string;
  note: string | null;
  referenceId: string;
  eventId: string;
  errorsBaseUrl: string;
  instance: string;
  requestId: string;
}

export interface TransferResult {
  status: number;
  /** The stored response body (JSON text); null when the key was reused for another request. */
  body: string | null;
  replayed: boolean;
}

/**
 * The hot path: one prepared statement, one round trip, straight on the pg pool.
 * The function (migrations/*-transfer-function.ts) does the locking, the checks,
 * the writes and the idempotency record in a single transaction.
 */
@Injectable()
export class TransferRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async execute(call: TransferCall): Promise<TransferResult> {
    const result = await this.pool.query<{ response_status: number; response_body: string | null; replayed: boolean }>({
      name: 'transfer_funds',
      text: 'SELECT response_status, response_body, replayed FROM transfer_funds($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
      values: [
        call.owner,
        call.idempotencyKey,
        call.requestHash,
        call.senderUpiId,
        call.receiverUpiId,
        call.amount,
        call.note,
        call.referenceId,
        call.eventId,
        call.errorsBaseUrl,
        call.instance,
        call.requestId,
      ],
    });
    const row = result.rows[0];
    return { status: row.response_status, body: row.response_body, replayed: row.replayed };
  }

  /** A finished outcome already stored for this key, for replaying while a dependency is down. */
  async findStoredOutcome(owner: string, idempotencyKey: string, requestHash: string): Promise<TransferResult | null> {
    const result = await this.pool.query<{ request_hash: string; response_status: number; response_body: string }>(
      `SELECT request_hash, response_status, response_body FROM idempotency_keys
       WHERE owner_upi_id = $1 AND idempotency_key = $2 AND response_status IS NOT NULL`,
      [owner, idempotencyKey],
    );
    const row = result.rows[0];
    if (!row) return null;
    if (row.request_hash !== requestHash) return { status: 400, body: null, replayed: false };
    return { status: row.response_status, body: row.response_body, replayed: true };
  }
}
