import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import type { MovementResult, StoredOutcome } from './stored-outcome';

/**
 * Reads finished records outside a movement, for replaying while a dependency the movement needs
 * is down. Claims and completions happen inside each movement's SQL function (one transaction).
 */
@Injectable()
export class IdempotencyStore {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** The finished outcome for this key, or key-reused for a different request; null when none is finished. */
  async findFinished(owner: string, idempotencyKey: string, requestHash: string): Promise<MovementResult | null> {
    const result = await this.pool.query<{ outcome: StoredOutcome }>({
      name: 'idempotent_replay',
      text: `SELECT idempotent_replay(k, $3) AS outcome FROM idempotency_keys k
             WHERE owner_upi_id = $1 AND idempotency_key = $2 AND status IN ('SUCCESS', 'FAILED')`,
      values: [owner, idempotencyKey, requestHash],
    });
    const outcome = result.rows[0]?.outcome;
    if (!outcome) return null;
    return { outcome, replayed: outcome.code !== 'key-reused' };
  }
}
