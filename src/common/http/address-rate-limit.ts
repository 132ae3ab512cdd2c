import { ApiError } from '../errors/api-error';
import { ErrorCode } from '../errors/error-code';
import { FixedWindowCounter } from '../fixed-window-counter';

/**
 * N attempts per client address per minute (0: off), per process: behind N instances an address
 * gets N times the limit. The login and registration limiters are this with their own setting.
 */
export class AddressRateLimit {
  private readonly counter: FixedWindowCounter | undefined;

  constructor(
    private readonly perMinute: number,
    private readonly attempts: string,
  ) {
    this.counter = perMinute > 0 ? new FixedWindowCounter(60_000) : undefined;
  }

  /** Throws 429 rate-limit-exceeded when the address has used up its minute. */
  async consume(ip: string): Promise<void> {
    if (!this.counter || this.counter.hit(ip) <= this.perMinute) return;
    throw new ApiError(
      ErrorCode.RateLimitExceeded,
      `Too many ${this.attempts}: the limit is ${this.perMinute} per minute per client address`,
      { headers: { 'Retry-After': String(Math.max(1, Math.ceil(this.counter.msBeforeNext(ip) / 1000))) } },
    );
  }

  onModuleDestroy(): void {
    this.counter?.close();
  }
}
