import { Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge } from 'prom-client';
import { outsideRequestContext } from '../common/outside-request-context';
import { DatabaseOutages } from '../common/errors/database-outages';
import { EventPublisher } from './event-publisher';
import { OutboxEventsRepository } from './outbox-events.repository';
import { RelayState } from './relay-state';
import { OUTBOX_OLDEST_AGE, OUTBOX_PENDING, OUTBOX_PUBLISH_FAILURES, OUTBOX_PUBLISHED } from './outbox-metrics';

const BATCH_SIZE = 500;
const FIRST_BACKOFF_MS = 250;
// Capped low: a retry against a broker that is down is one refused connection, cheap enough to try
// every second, and the cap bounds how long publishing lags behind a broker that has come back
// (issue 21: 24 s with the old 30 s cap).
const MAX_BACKOFF_MS = 1000;
const FAILURES_PER_LOG_LINE = 60;
/**
 * Runs start at least this far apart: every completed transfer nudges the relay, and a relay
 * transaction per batch of transfers cost PostgreSQL as much as a tenth of the transfers' own
 * work (five round trips and a commit each). Events wait 25 ms at most for it.
 */
const MIN_RUN_SPACING_MS = 25;

/**
 * Moves committed outbox rows to the publisher in commit order (sql/outbox_pending.sql): reads a
 * batch, publishes, then moves its place past it, all in one transaction
 * (OutboxEventsRepository.asRelay). Its relay lock makes it the only writer of that place; it
 * writes nothing per event. A crash after the broker's ack but before the move republishes them:
 * delivery is at-least-once. Failures back off exponentially and never touch the transfer path,
 * which only inserts rows.
 */
@Injectable()
export class OutboxRelay implements OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private running: Promise<void> | undefined;
  private rerunRequested = false;
  private lastRunAt = 0;
  private spacingTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private backoffMs = 0;
  private retryAt = 0;
  /** What the kafka health component shows (relay-state.ts). */
  readonly state = new RelayState();

  constructor(
    private readonly outboxEvents: OutboxEventsRepository,
    private readonly publisher: EventPublisher,
    @InjectMetric(OUTBOX_PENDING) private readonly pendingGauge: Gauge,
    @InjectMetric(OUTBOX_OLDEST_AGE) private readonly oldestAgeGauge: Gauge,
    @InjectMetric(OUTBOX_PUBLISHED) private readonly publishedCounter: Counter,
    @InjectMetric(OUTBOX_PUBLISH_FAILURES) private readonly failureCounter: Counter,
    @Optional() private readonly outages?: DatabaseOutages,
  ) {}

  /** Called after each committed transfer: run soon, coalescing nudges that arrive while a run is going. */
  nudge(): void {
    if (this.stopped || Date.now() < this.retryAt) return;
    if (this.running) {
      this.rerunRequested = true;
      return;
    }
    const wait = this.lastRunAt + MIN_RUN_SPACING_MS - Date.now();
    if (wait > 0) {
      this.spacingTimer ??= setTimeout(() => {
        this.spacingTimer = undefined;
        this.nudge();
      }, wait).unref();
      return;
    }
    this.startRun();
  }

  /**
   * Bound at construction: a run belongs to no request. Started from the request whose transfer
   * nudged it, it would log with that request's id and leave that request's context (its logger)
   * on the pool's idle timer of the connection it used.
   */
  private readonly startRun = outsideRequestContext(() => {
    this.lastRunAt = Date.now();
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.rerunRequested) {
        this.rerunRequested = false;
        this.nudge();
      }
    });
  });

  @Interval('outbox-relay', 1000)
  async poll(): Promise<void> {
    this.nudge();
    await this.refreshGauges();
  }

  /** Relays until nothing is pending (or a batch fails); resolves when done. */
  async drain(): Promise<void> {
    try {
      while (!this.stopped && (await this.relayBatch()) === BATCH_SIZE);
      this.backoffMs = 0;
      this.retryAt = 0;
      const failures = this.state.consecutiveFailures;
      if (failures > 0) this.logger.log(`Outbox relay publishing again after ${failures} failed attempts`);
      this.state.succeeded();
    } catch (error) {
      this.failureCounter.inc();
      this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs === 0 ? FIRST_BACKOFF_MS : this.backoffMs * 2);
      this.retryAt = Date.now() + this.backoffMs;
      this.state.failed(error as Error, this.retryAt);
      // Retries come every second now: the first failure of an outage and then one a minute is enough.
      const databaseOutage = this.outages?.absorbs('outbox-relay', error) ?? false;
      if (!databaseOutage && this.state.consecutiveFailures % FAILURES_PER_LOG_LINE === 1) {
        this.logger.warn(
          `Outbox relay failed (${this.state.consecutiveFailures} in a row), retrying every ${MAX_BACKOFF_MS} ms at most: ${(error as Error).message}`,
        );
      }
    }
  }

  /** Relays now, ignoring any back-off, and resolves once nothing is pending (for operators and tests). */
  async drainNow(): Promise<void> {
    this.retryAt = 0;
    while (this.running) await this.running;
    this.lastRunAt = 0;
    this.nudge();
    await this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.spacingTimer);
    await this.running;
  }

  private async relayBatch(): Promise<number> {
    const relayed = await this.outboxEvents.asRelay(async (relay) => {
      const rows = await relay.findPending(BATCH_SIZE);
      if (rows.length === 0) return 0;
      await this.publisher.publish(rows);
      this.state.published();
      await relay.markPublished(rows, BATCH_SIZE);
      return rows.length;
    });
    this.publishedCounter.inc(relayed ?? 0);
    return relayed ?? 0;
  }

  private async refreshGauges(): Promise<void> {
    try {
      const stats = await this.outboxEvents.pendingStats();
      this.pendingGauge.set(stats.pending);
      this.oldestAgeGauge.set(stats.age);
      this.state.measured(stats.pending, stats.age);
    } catch {
      // The database is unreachable; readiness reports that. Keep the last values.
    }
  }
}
