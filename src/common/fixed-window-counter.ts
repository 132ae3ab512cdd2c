/** How long a key may go without a hit before the sweep forgets it. */
const FORGET_AFTER_WINDOWS = 10;

/**
 * Hits per key over fixed windows of `windowMs`, each window starting at the key's first hit after
 * the last one ended (as rate-limiter-flexible's memory store counts): the service's in-memory rate
 * limits (per user for transfers, per address for logins and registrations). The store keeps one entry
 * per key and reuses it from window to window; one sweep, every ten windows, forgets the keys idle
 * that long. rate-limiter-flexible's memory store makes a new record and arms a timer per key and
 * window instead: with a user's transfers a second apart, each lives one window, outlasts two
 * scavenges and ends in the old space. At 1,000 transfers/s that brought a full collection every
 * 45 s; without it, none came in the 85 s after one (docs/decisions/0013-the-tail-at-1000-transfers-per-second.md).
 */
export class FixedWindowCounter {
  private readonly entries = new Map<string, { startedAt: number; hits: number }>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweep = setInterval(() => this.forgetIdle(), windowMs * FORGET_AFTER_WINDOWS).unref();
  }

  /** Counts one hit for `key` and returns the hits in its current window, this one included. */
  hit(key: string): number {
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.entries.set(key, { startedAt: now, hits: 1 });
      return 1;
    }
    if (now - entry.startedAt >= this.windowMs) {
      entry.startedAt = now;
      entry.hits = 0;
    }
    entry.hits += 1;
    return entry.hits;
  }

  /** Milliseconds until `key`'s current window ends; 0 once it has ended or for a key never hit. */
  msBeforeNext(key: string): number {
    const entry = this.entries.get(key);
    return entry === undefined ? 0 : Math.max(0, entry.startedAt + this.windowMs - this.now());
  }

  /** How many keys the counter holds. */
  get size(): number {
    return this.entries.size;
  }

  /** Drops the keys without a hit for ten windows; the sweep calls it. */
  forgetIdle(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (now - entry.startedAt >= this.windowMs * FORGET_AFTER_WINDOWS) this.entries.delete(key);
    }
  }

  close(): void {
    clearInterval(this.sweep);
  }
}
