import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Pool } from 'pg';
import type { Counter } from 'prom-client';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { FixedWindowCounter } from '../common/fixed-window-counter';
import { outsideRequestContext } from '../common/outside-request-context';
import { AppConfig } from '../config/app-config';
import { PG_POOL } from '../database/pg-pool';
import { RATE_LIMIT_REJECTIONS } from './transfer-metrics';

/** Created by a migration (1764001000000), never at run time. */
const RATE_LIMIT_TABLE = 'transfer_rate_limits';

/**
 * RATE_LIMIT_PER_SECOND transfers per second per user. With RATE_LIMIT_STORE=memory (the
 * default) the counters are per process (src/common/fixed-window-counter.ts), so N instances allow
 * up to N times the limit; with RATE_LIMIT_STORE=postgres one atomic upsert per request on the
 * service's pool (rate-limiter-flexible) counts across every instance on the database.
 */
@Injectable()
export class TransferRateLimiter implements OnModuleDestroy {
  /** The memory store answers at once; the Postgres store after its upsert. */
  private readonly allows: (key: string) => boolean | Promise<boolean>;
  private readonly memory?: FixedWindowCounter;
  rejected = 0;

  constructor(
    private readonly config: AppConfig,
    @InjectMetric(RATE_LIMIT_REJECTIONS) private readonly rejections: Counter,
    @Inject(PG_POOL) pool: Pool,
  ) {
    if (config.rateLimitStore === 'postgres') {
      this.allows = postgresAllowance(config.rateLimitPerSecond, pool);
    } else {
      const memory = new FixedWindowCounter(1000);
      this.memory = memory;
      this.allows = (key) => memory.hit(key) <= config.rateLimitPerSecond;
    }
  }

  /** A database error propagates: the request fails as any database failure does. */
  async consume(upiId: string): Promise<void> {
    if (await this.allows(upiId.toLowerCase())) return;
    this.rejected += 1;
    this.rejections.inc();
    throw new ApiError(
      ErrorCode.RateLimitExceeded,
      `Too many transfers: the limit is ${this.config.rateLimitPerSecond} requests per second per user`,
      { headers: { 'Retry-After': '1' } },
    );
  }

  onModuleDestroy(): void {
    this.memory?.close();
  }
}

/** Whether one more transfer fits the key's second, counted in PostgreSQL for every instance. */
function postgresAllowance(perSecond: number, pool: Pool): (key: string) => Promise<boolean> {
  const limiter = new RateLimiterPostgres({
    points: perSecond,
    duration: 1,
    storeClient: pool,
    storeType: 'pool',
    tableName: RATE_LIMIT_TABLE,
    tableCreated: true,
    keyPrefix: 'transfer',
  });
  const consume = outsideRequestContext((key: string) => limiter.consume(key));
  return async (key) => {
    try {
      await consume(key);
      return true;
    } catch (error) {
      if (error instanceof RateLimiterRes) return false;
      throw error;
    }
  };
}
