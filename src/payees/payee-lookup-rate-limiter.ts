import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Pool } from 'pg';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { KeyedRateLimit } from '../common/keyed-rate-limit';
import { AppConfig } from '../config/app-config';
import { PG_POOL } from '../database/pg-pool';
import { RATE_LIMIT_TABLE } from '../transactions/transfer-rate-limiter';

/** NPCI OC-101A: enough to check the payees a person really pays, too few to walk the user base. */
export const PAYEE_LOOKUPS_PER_MINUTE = 30;

/**
 * Payee look-ups per user and minute, kept where the transfer limit keeps its counts
 * (RATE_LIMIT_STORE: per process, or in PostgreSQL for every instance).
 */
@Injectable()
export class PayeeLookupRateLimiter implements OnModuleDestroy {
  private readonly limit: KeyedRateLimit;

  constructor(config: AppConfig, @Inject(PG_POOL) pool: Pool) {
    this.limit = new KeyedRateLimit({
      points: PAYEE_LOOKUPS_PER_MINUTE,
      windowMs: 60_000,
      store: config.rateLimitStore,
      pool,
      tableName: RATE_LIMIT_TABLE,
      keyPrefix: 'payee-lookup',
    });
  }

  /** 429 with Retry-After (whole seconds until the caller's minute ends) beyond the limit. */
  async consume(callerReferenceId: string): Promise<void> {
    const waitMs = await this.limit.waitMs(callerReferenceId);
    if (waitMs === 0) return;
    const seconds = Math.ceil(waitMs / 1000);
    throw new ApiError(
      ErrorCode.RateLimitExceeded,
      `Too many payee look-ups: the limit is ${PAYEE_LOOKUPS_PER_MINUTE} per minute per user; retry after ${seconds} s`,
      { headers: { 'Retry-After': String(seconds) } },
    );
  }

  onModuleDestroy(): void {
    this.limit.close();
  }
}
