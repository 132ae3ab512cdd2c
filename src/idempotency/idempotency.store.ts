import { Injectable } from '@nestjs/common';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import type { MovementResult } from './stored-outcome';

/**
 * Reads finished records outside a movement, for replaying while a dependency the movement needs
 * is down. Claims and completions happen inside each movement's SQL function (one transaction).
 */
@Injectable()
export class IdempotencyStore {
  constructor(private readonly keys: IdempotencyKeysRepository) {}

  /** The finished outcome for this key, or key-reused for a different request; null when none is finished. */
  async findFinished(owner: string, idempotencyKey: string, requestHash: string): Promise<MovementResult | null> {
    const outcome = await this.keys.findFinishedOutcome(owner, idempotencyKey, requestHash);
    if (!outcome) return null;
    return { outcome, replayed: outcome.code !== 'key-reused' };
  }
}
