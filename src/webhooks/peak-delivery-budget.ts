/**
 * How many deliveries this process may start now: unlimited while the money path is not busy;
 * while it is, a token bucket refilled at `perSecond`, holding a fifth of a second's worth and
 * spent half a bucket or more at a time, so each claim still takes a handful of rows. 0 turns the
 * limit off.
 */
export class PeakDeliveryBudget {
  private tokens: number;
  private refilledAt: number;
  private readonly capacity: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.capacity = Math.max(1, perSecond / 5);
    this.tokens = this.capacity;
    this.refilledAt = now();
  }

  /** Starts allowed now: Infinity when nothing limits them. */
  available(busy: boolean): number {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000);
    this.refilledAt = now;
    if (this.perSecond === 0 || !busy) return Infinity;
    return this.tokens >= this.capacity / 2 ? Math.floor(this.tokens) : 0;
  }

  spend(starts: number): void {
    this.tokens = Math.max(0, this.tokens - starts);
  }

  /** How long an empty bucket takes to allow starts again. */
  get refillMs(): number {
    return this.perSecond === 0 ? 0 : Math.ceil((this.capacity / 2 / this.perSecond) * 1000);
  }
}
