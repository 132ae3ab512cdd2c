import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { FixedWindowCounter } from './fixed-window-counter';
import { outsideRequestContext } from './outside-request-context';

export interface KeyedRateLimitOptions {
  /** Hits allowed per key in one window. */
  points: number;
  /** A whole number of seconds: the Postgres store counts in seconds. */
  windowMs: number;
  /** `memory`: per process; `postgres`: one count for every instance on the database (RATE_LIMIT_STORE). */
  store: 'memory' | 'postgres';
  pool: Pool;
  /** An existing table of rate-limiter-flexible's layout, created by a migration, never at run time. */
  tableName: string;
  /** Sets this limit's rows apart from other limits kept in the same table. */
  keyPrefix: string;
}

/**
 * `points` hits per key per window, the service's per-user limits (transfers, payee look-ups). The
 * memory store answers at once (src/common/fixed-window-counter.ts); the Postgres store after one
 * atomic upsert on the service's pool (rate-limiter-flexible), so N instances share one count.
 */
export class KeyedRateLimit {
  /** 0 when one more hit of `key` fits its window, else the milliseconds until that window ends. */
  readonly waitMs: (key: string) => number | Promise<number>;
  private readonly memory?: FixedWindowCounter;

  constructor(options: KeyedRateLimitOptions) {
    if (options.store === 'postgres') {
      this.waitMs = postgresWait(options);
    } else {
      const memory = new FixedWindowCounter(options.windowMs);
      this.memory = memory;
      this.waitMs = (key) => (memory.hit(key) <= options.points ? 0 : Math.max(1, memory.msBeforeNext(key)));
    }
  }

  close(): void {
    this.memory?.close();
  }
}

/** A database error propagates: the request fails as any database failure does. */
function postgresWait(options: KeyedRateLimitOptions): (key: string) => Promise<number> {
  const limiter = new RateLimiterPostgres({
    points: options.points,
    duration: options.windowMs / 1000,
    storeClient: options.pool,
    storeType: 'pool',
    tableName: options.tableName,
    tableCreated: true,
    keyPrefix: options.keyPrefix,
  });
  const consume = outsideRequestContext((key: string) => limiter.consume(key));
  return async (key) => {
    try {
      await consume(key);
      return 0;
    } catch (error) {
      if (error instanceof RateLimiterRes) return Math.max(1, error.msBeforeNext);
      throw error;
    }
  };
}
