import { Inject, Injectable } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Pool } from 'pg';
import type { Counter } from 'prom-client';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { outsideRequestContext } from '../common/outside-request-context';
import { AppConfig } from '../config/app-config';
import { PG_POOL } from '../database/pg-pool';
import { RATE_LIMIT_REJECTIONS } from './transfer-metrics';

/** Created by a migration (1764001000000), never at run time. */
const RATE_LIMIT_TABLE = 'transfer_rate_limits';

/**
 * RATE_LIMIT_PER_SECOND transfers per second per user. With RATE_LIMIT_STORE=memory (the
 * default) the counters are per process, so N instances allow up to N times the limit; with
 * RATE_LIMIT_STORE=postgres one atomic upsert per request on the service's pool counts across
 * every instance on the database.
 */
@Injectable()
export class TransferRateLimiter {
  private readonly limiter: RateLimiterAbstract;
  private readonly consumePoint: (key: string) => Promise<RateLimiterRes>;
  rejected = 0;

  constructor(
    private readonly config: AppConfig,
    @InjectMetric(RATE_LIMIT_REJECTIONS) private readonly rejections: Counter,
    @Inject(PG_POOL) pool: Pool,
  ) {
    const options = { points: config.rateLimitPerSecond, duration: 1 };
    this.limiter =
      config.rateLimitStore === 'postgres'
        ? new RateLimiterPostgres({
            ...options,
            storeClient: pool,
            storeType: 'pool',
            tableName: RATE_LIMIT_TABLE,
            tableCreated: true,
            keyPrefix: 'transfer',
          })
        : new RateLimiterMemory(options);
    this.consumePoint = outsideRequestContext((key: string) => this.limiter.consume(key));
  }

  /** A database error (not a RateLimiterRes) propagates: the request fails as any database failure does. */
  async consume(upiId: string): Promise<void> {
    try {
      await this.consumePoint(upiId.toLowerCase());
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      this.rejected += 1;
      this.rejections.inc();
      throw new ApiError(
        ErrorCode.RateLimitExceeded,
        `Too many transfers: the limit is ${this.config.rateLimitPerSecond} requests per second per user`,
        { headers: { 'Retry-After': '1' } },
      );
    }
  }
}
