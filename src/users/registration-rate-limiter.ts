import { Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';

/**
 * REGISTRATION_RATE_LIMIT_PER_MINUTE registrations per client address (0: off, the development
 * default, so test harnesses registering many users keep working; 10 in production). Each one
 * may run a PIN hash, so an unlimited stream of them is a denial of service. Per process, like
 * the login limiter.
 */
@Injectable()
export class RegistrationRateLimiter {
  private readonly limiter: RateLimiterMemory | undefined;

  constructor(private readonly config: AppConfig) {
    const points = config.registrationRateLimitPerMinute;
    this.limiter = points > 0 ? new RateLimiterMemory({ points, duration: 60 }) : undefined;
  }

  async consume(ip: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.consume(ip);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      throw new ApiError(
        ErrorCode.RateLimitExceeded,
        `Too many registrations: the limit is ${this.config.registrationRateLimitPerMinute} per minute per client address`,
        { headers: { 'Retry-After': String(Math.max(1, Math.ceil(error.msBeforeNext / 1000))) } },
      );
    }
  }
}
