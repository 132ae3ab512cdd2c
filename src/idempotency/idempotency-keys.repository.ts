import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import type { StoredOutcome } from './stored-outcome';

// The stored outcome of a finished key, through idempotent_replay (sql/idempotent_replay.sql); the
// record is found by the digest of its owner and key, both compared (sql/idempotency_record.sql).
const FINISHED_OUTCOME = {
  name: 'idempotent_replay',
  text: `SELECT idempotent_replay(k, $3) AS outcome FROM idempotency_record($1, $2) k
         WHERE status IN ('SUCCESS', 'FAILED')`,
};

/**
 * idempotency_keys outside a movement: claimed and finished only inside the movements' SQL
 * functions (sql/), read at the edge by IdempotencyStore, deleted here once expired.
 */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** The outcome replayed for this key and request hash (key-reused for another request); null when unfinished or none. */
  async findFinishedOutcome(owner: string, idempotencyKey: string, requestHash: string): Promise<StoredOutcome | null> {
    const { rows } = await this.pool.query<{ outcome: StoredOutcome }>({
      ...FINISHED_OUTCOME,
      values: [owner, idempotencyKey, requestHash],
    });
    return rows[0]?.outcome ?? null;
  }
}
