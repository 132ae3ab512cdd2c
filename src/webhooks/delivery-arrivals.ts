/** How far back the arrival rate looks: a burst shorter than this counts as its average over it. */
export const ARRIVAL_WINDOW_MS = 10_000;

/**
 * The rate at which webhook deliveries are being written (by every instance), from samples of the
 * count of deliveries ever written. It is the average over the last ARRIVAL_WINDOW_MS, always
 * divided by the whole window: a short burst raises it only by its share of the window, so peak
 * protection still defers bursts, while a rate that lasts shows in full after one window.
 */
export class DeliveryArrivals {
  private readonly samples: { at: number; written: number }[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  note(written: number): void {
    const at = this.now();
    this.samples.push({ at, written });
    // Keep the newest sample at or before the window's start: the baseline of the window.
    while (this.samples.length > 2 && this.samples[1].at <= at - ARRIVAL_WINDOW_MS) this.samples.shift();
  }

  /** Deliveries written per second over the window; 0 until there are two samples. */
  get perSecond(): number {
    if (this.samples.length < 2) return 0;
    const [oldest, newest] = [this.samples[0], this.samples[this.samples.length - 1]];
    const spanMs = Math.max(ARRIVAL_WINDOW_MS, newest.at - oldest.at);
    return (Math.max(0, newest.written - oldest.written) * 1000) / spanMs;
  }
}
