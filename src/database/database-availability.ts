import { Logger } from '@nestjs/common';
import { DatabaseOutages } from '../common/errors/database-outages';
import { isDatabaseUnavailable } from '../common/errors/postgres-errors';
import { isPlannedShutdown } from '../common/logging';
import { type DatabaseHost, hostLabel } from '../config/database-url';
import { describeProbes, type PrimaryLocator } from './primary-locator';

/** While there is no primary, how often every host is tried again. */
const LOOK_AGAIN_MS = 1000;

/** What the metrics follow (src/actuator/database-availability-metrics.ts). */
export interface AvailabilityListener {
  /** One failure of `component` (requests, outbox-relay, ...) for want of a database. */
  failed(component: string): void;
  changed(available: boolean): void;
}

/**
 * One view of "is there a writable primary", shared by the pool, the requests and every
 * background worker. Their failures for want of a database are counted here and logged here:
 * one warning when the primary goes, one line when it is back, never a line per attempt. A
 * suspicion (a lost connection, a read-only answer) is confirmed by trying every host of
 * DATABASE_URL before anything is said; while there is none, they are tried every second, and
 * the first writable one becomes the pool's primary (primary-locator.ts).
 */
export class DatabaseAvailability extends DatabaseOutages {
  private downSince: number | undefined;
  private downReason = '';
  private failuresWhileDown = 0;
  private checking: Promise<void> | undefined;
  private lastCheckAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly listeners: AvailabilityListener[] = [];

  constructor(
    private readonly locator: PrimaryLocator,
    private readonly logger = new Logger('Database'),
    private readonly lookAgainMs = LOOK_AGAIN_MS,
  ) {
    super();
  }

  /** Why there is no primary and since when; undefined while there is one. */
  get outage(): { sinceMs: number; reason: string } | undefined {
    return this.downSince === undefined ? undefined : { sinceMs: this.downSince, reason: this.downReason };
  }

  listen(listener: AvailabilityListener): void {
    this.listeners.push(listener);
  }

  /**
   * True when `error` means the database is unavailable: counted for `component` and logged by
   * this tracker (once per outage), so the caller logs nothing. False: the caller's own error.
   */
  override absorbs(component: string, error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    if (this.downSince !== undefined) this.failuresWhileDown++;
    for (const listener of this.listeners) listener.failed(component);
    this.suspect();
    return true;
  }

  /** The primary may be gone (a lost connection, a read-only answer): look, at most once a second. */
  suspect(): void {
    if (this.stopped || this.checking || this.downSince !== undefined) return;
    if (Date.now() - this.lastCheckAt < this.lookAgainMs) return;
    this.check();
  }

  /** Looks again now (or waits for the look in progress), so that a caller such as readiness sees the present. */
  async recheck(): Promise<void> {
    if (this.stopped) return;
    if (!this.checking) {
      clearTimeout(this.retryTimer);
      this.check();
    }
    await this.checking;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  private check(): void {
    this.lastCheckAt = Date.now();
    this.checking = this.lookForPrimary().finally(() => (this.checking = undefined));
  }

  private async lookForPrimary(): Promise<void> {
    const { primary, probes } = await this.locator.find();
    if (this.stopped) return;
    if (primary) return this.found(primary);
    this.wentDown(describeProbes(probes));
    this.retryTimer = setTimeout(() => this.check(), this.lookAgainMs).unref();
  }

  private found(primary: DatabaseHost): void {
    const previous = this.locator.current;
    const moved = this.locator.use(primary);
    if (this.downSince === undefined) {
      if (moved) this.logger.warn(`Database primary moved from ${hostLabel(previous)} to ${hostLabel(primary)}`);
      return;
    }
    const seconds = ((Date.now() - this.downSince) / 1000).toFixed(1);
    this.logger.warn(
      `Database primary available again at ${hostLabel(primary)} after ${seconds} s ` +
        `(${this.failuresWhileDown} operations answered "unavailable" meanwhile)`,
    );
    this.downSince = undefined;
    for (const listener of this.listeners) listener.changed(true);
  }

  private wentDown(reason: string): void {
    this.downReason = reason;
    if (this.downSince !== undefined) return;
    this.downSince = Date.now();
    this.failuresWhileDown = 0;
    const message =
      `No writable database primary (${reason}); requests answer 503 and background work waits ` +
      `until one is found (every host is tried every ${this.lookAgainMs} ms)`;
    if (isPlannedShutdown()) this.logger.debug(message);
    else this.logger.warn(message);
    for (const listener of this.listeners) listener.changed(false);
  }
}
