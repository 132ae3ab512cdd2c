import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import type { AnswerContext, MovementResult, StoredOutcome } from '../idempotency/stored-outcome';

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
  context: AnswerContext;
}

/**
 * The hot path: one prepared statement, one round trip, straight on the pg pool. The function
 * (sql/transfer_funds.sql) locks, checks, writes and stores the outcome in a single transaction.
 */
@Injectable()
export class TransferRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async execute(call: TransferCall): Promise<MovementResult> {
    const result = await this.pool.query<{ result: StoredOutcome; replayed: boolean }>({
      name: 'transfer_funds',
      text: 'SELECT result, replayed FROM transfer_funds($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
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
        call.context,
      ],
    });
    const row = result.rows[0];
    return { outcome: row.result, replayed: row.replayed };
  }
}
