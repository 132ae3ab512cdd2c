import { Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';

/**
 * LOGIN_RATE_LIMIT_PER_MINUTE login attempts per client IP (0: off). Per process, like the
 * transfer limiter: behind N instances an address gets N times the limit, while the lockout
 * (in PostgreSQL) still bounds guesses per UPI ID exactly.
 */
@Injectable()
export class LoginRateLimiter {
  private readonly limiter: RateLimiterMemory | undefined;

  constructor(private readonly config: AppConfig) {
    const points = config.loginRateLimitPerMinute;
    this.limiter = points > 0 ? new RateLimiterMemory({ points, duration: 60 }) : undefined;
  }

  /** Throws 429 rate-limit-exceeded when the address has used up its minute. */
  async consume(ip: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.consume(ip);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const retryAfter = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw new ApiError(
        ErrorCode.RateLimitExceeded,
        `Too many login attempts: the limit is ${this.config.loginRateLimitPerMinute} per minute per client address`,
        { headers: { 'Retry-After': String(retryAfter) } },
      );
    }
  }
}
