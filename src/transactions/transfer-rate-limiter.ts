import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Pool } from 'pg';
import type { Counter } from 'prom-client';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { KeyedRateLimit } from '../common/keyed-rate-limit';
import { AppConfig } from '../config/app-config';
import { PG_POOL } from '../database/pg-pool';
import { RATE_LIMIT_REJECTIONS } from './transfer-metrics';

/** Created by a migration (1764001000000), never at run time; other per-user limits keep rows here under their own prefix. */
export const RATE_LIMIT_TABLE = 'transfer_rate_limits';

/**
 * RATE_LIMIT_PER_SECOND transfers per second per user. With RATE_LIMIT_STORE=memory (the
 * default) the counters are per process (src/common/fixed-window-counter.ts), so N instances allow
 * up to N times the limit; with RATE_LIMIT_STORE=postgres one atomic upsert per request on the
 * service's pool (rate-limiter-flexible) counts across every instance on the database.
 */
@Injectable()
export class TransferRateLimiter implements OnModuleDestroy {
  private readonly limit: KeyedRateLimit;
  rejected = 0;

  constructor(
    private readonly config: AppConfig,
    @InjectMetric(RATE_LIMIT_REJECTIONS) private readonly rejections: Counter,
    @Inject(PG_POOL) pool: Pool,
  ) {
    this.limit = new KeyedRateLimit({
      points: config.rateLimitPerSecond,
      windowMs: 1000,
      store: config.rateLimitStore,
      pool,
      tableName: RATE_LIMIT_TABLE,
      keyPrefix: 'transfer',
    });
  }

  /** A database error propagates: the request fails as any database failure does. */
  async consume(upiId: string): Promise<void> {
    if ((await this.limit.waitMs(upiId.toLowerCase())) === 0) return;
    this.rejected += 1;
    this.rejections.inc();
    throw new ApiError(
      ErrorCode.RateLimitExceeded,
      `Too many transfers: the limit is ${this.config.rateLimitPerSecond} requests per second per user`,
      { headers: { 'Retry-After': '1' } },
    );
  }

  onModuleDestroy(): void {
    this.limit.close();
  }
}
