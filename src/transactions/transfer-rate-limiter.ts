import { Injectable } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { RATE_LIMIT_REJECTIONS } from './transfer-metrics';

/**
 * RATE_LIMIT_PER_SECOND transfers per second per user. Counters are per process: with N
 * instances a user can reach N times the limit (README: rate-limiter-flexible's
 * RateLimiterPostgres or RateLimiterRedis share them).
 */
@Injectable()
export class TransferRateLimiter {
  private readonly limiter: RateLimiterMemory;
  rejected = 0;

  constructor(
    private readonly config: AppConfig,
    @InjectMetric(RATE_LIMIT_REJECTIONS) private readonly rejections: Counter,
  ) {
    this.limiter = new RateLimiterMemory({ points: config.rateLimitPerSecond, duration: 1 });
  }

  async consume(upiId: string): Promise<void> {
    try {
      await this.limiter.consume(upiId.toLowerCase());
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
