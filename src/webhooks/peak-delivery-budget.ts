/** While busy, deliveries may start this much faster than they arrive, so a backlog drains. */
export const CATCH_UP_FACTOR = 1.2;
/** Under sustained load, each this-many seconds of lateness adds the arrival rate once more to the budget. */
export const LATENESS_SCALE_SECONDS = 5;

/** What the budget adapts to: deliveries being written per second, and how late the last claimed one was. */
export interface DeliveryDemand {
  arrivalsPerSecond: number;
  lateMs: number;
}

/**
 * How many deliveries this process may start now: unlimited while the money path is not busy.
 * While it is, a token bucket refilled at the floor, or, once deliveries keep arriving faster than
 * the floor allows, at CATCH_UP_FACTOR times their arrival rate, raised further in proportion to
 * how late due deliveries are claimed. A burst is held to the floor and goes out after the peak;
 * a steady rate above it is sent a little faster than it arrives, and if the path to the endpoints
 * (claims, lanes, a loaded machine) starts fewer than the budget allows, lateness grows until the
 * budget makes up for it: at any rate the service sustains, the backlog stays bounded.
 * The bucket holds a fifth of a second's worth and is spent half a bucket or more at a time, so
 * each claim still takes a handful of rows. A floor of 0 turns the limit off.
 */
export class PeakDeliveryBudget {
  private tokens: number;
  private refilledAt: number;
  private perSecond: number;

  constructor(
    private readonly floorPerSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perSecond = floorPerSecond;
    this.tokens = this.capacity;
    this.refilledAt = now();
  }

  /** Starts allowed now: Infinity when nothing limits them. */
  available(busy: boolean, demand: DeliveryDemand = { arrivalsPerSecond: 0, lateMs: 0 }): number {
    const now = this.now();
    this.perSecond = this.rateFor(demand);
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000);
    this.refilledAt = now;
    if (this.floorPerSecond === 0 || !busy) return Infinity;
    return this.tokens >= this.capacity / 2 ? Math.floor(this.tokens) : 0;
  }

  spend(starts: number): void {
    this.tokens = Math.max(0, this.tokens - starts);
  }

  /** The rate the bucket refills at now, per second. */
  get rate(): number {
    return this.perSecond;
  }

  /** How long until the bucket allows starts again (what it holds already counts). */
  get refillMs(): number {
    if (this.floorPerSecond === 0) return 0;
    return Math.max(1, Math.ceil(((this.capacity / 2 - this.tokens) / this.perSecond) * 1000));
  }

  private rateFor({ arrivalsPerSecond, lateMs }: DeliveryDemand): number {
    const keepingPace = arrivalsPerSecond * CATCH_UP_FACTOR;
    if (keepingPace <= this.floorPerSecond) return this.floorPerSecond;
    return keepingPace * (1 + Math.max(0, lateMs) / 1000 / LATENESS_SCALE_SECONDS);
  }

  private get capacity(): number {
    return Math.max(1, this.perSecond / 5);
  }
}
