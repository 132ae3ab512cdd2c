import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';

// The oldest expired keys first, served by ix_idempotency_keys_created. $1 the TTL in hours; $2 how many.
const DELETE_EXPIRED = `
  DELETE FROM idempotency_keys WHERE id IN (
    SELECT id FROM idempotency_keys
    WHERE created_at < now() - make_interval(hours => $1)
    ORDER BY created_at LIMIT $2)`;

/**
 * idempotency_keys outside a movement: claimed and finished only inside the movements' SQL
 * functions (sql/), read at the edge by IdempotencyStore, deleted here once expired.
 */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** Up to `limit` keys older than the TTL; returns how many were deleted. */
  async deleteExpired(ttlHours: number, limit: number): Promise<number> {
    const { rowCount } = await this.pool.query(DELETE_EXPIRED, [ttlHours, limit]);
    return rowCount ?? 0;
  }
}
