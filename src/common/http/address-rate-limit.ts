import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { outsideRequestContext } from '../outside-request-context';

/**
 * N attempts per client address per minute (0: off), per process: behind N instances an address
 * gets N times the limit. The login and registration limiters are this with their own setting.
 */
export class AddressRateLimit {
  private readonly limiter: RateLimiterMemory | undefined;
  private readonly consumePoint: (key: string) => Promise<RateLimiterRes>;

  constructor(
    private readonly perMinute: number,
    private readonly attempts: string,
  ) {
    this.limiter = perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: 60 }) : undefined;
    this.consumePoint = outsideRequestContext((key: string) => this.limiter!.consume(key));
  }

  /** Throws 429 rate-limit-exceeded when the address has used up its minute. */
  async consume(ip: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.consumePoint(ip);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      throw new ApiError(
        ErrorCode.RateLimitExceeded,
        `Too many ${this.attempts}: the limit is ${this.perMinute} per minute per client address`,
        { headers: { 'Retry-After': String(Math.max(1, Math.ceil(error.msBeforeNext / 1000))) } },
      );
    }
  }
}
