import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Histogram } from 'prom-client';
import { AppConfig } from '../config/app-config';
import { MoneyPathLoad } from '../movements/money-path-load';
import { AttemptRecorder } from './attempt-recorder';
import { DeliveryArrivals } from './delivery-arrivals';
import { PeakDeliveryBudget } from './peak-delivery-budget';
import { nextAttemptDelayMs } from './retry-schedule';
import { systemResolver } from './url-safety';
import { DatabaseOutages } from '../common/errors/database-outages';
import { type ClaimedDelivery, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WEBHOOK_ATTEMPT_DURATION, WEBHOOK_ATTEMPTS } from './webhook-metrics';
import { type AttemptResult, sendWebhook } from './webhook-sender';

/** Attempts running at once in this process, over all endpoints and per endpoint. */
export const MAX_IN_FLIGHT = 64;
export const MAX_IN_FLIGHT_PER_ENDPOINT = 16;
const TICK_MS = 500;
const ARRIVAL_SAMPLE_MS = 1000;
/**
 * Once the worker has caught up (a claim found less than half a lane's worth due, and few
 * attempts are running), the next claim waits this long: under steady traffic the events then go
 * out a dozen per claim and per results write instead of one or two at a time, and each of
 * those statements costs the database about as much as a dozen rows do.
 */
const QUIET_AFTER_SMALL_CLAIM_MS = 50;
/** No attempt can help a delivery whose event JSON is gone: it fails for good, with a log line. */
const EVENT_GONE: AttemptResult = {
  delivered: false,
  statusCode: null,
  error: 'the event is no longer in outbox_events',
  kind: 'refused',
};
const SHUTDOWN_WAIT_MS = 3000;

/**
 * Sends due webhook deliveries. Each endpoint has its own bounded lane, so a slow or dead one
 * fills only its own slots, and the worker shares nothing with the Kafka relay but the database.
 * Work is claimed in PostgreSQL (FOR UPDATE SKIP LOCKED) so any number of instances may run it;
 * a claim is a lease, so a process that dies mid-attempt leaves its deliveries due again.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly inFlight = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  private pumping: Promise<void> | undefined;
  private repumpRequested = false;
  private stopped = false;
  private claimFailing = false;
  private quietUntil = 0;
  private quietTimer: NodeJS.Timeout | undefined;
  /** Aborted at shutdown once the grace period is over, so no socket outlives the process's work. */
  private readonly stopAttempts = new AbortController();
  private readonly leaseMs: number;
  /** At the money path's peaks deliveries give way, never below the rate they arrive at (peak-delivery-budget.ts). */
  private readonly peakBudget: PeakDeliveryBudget;
  private readonly arrivals = new DeliveryArrivals();
  private lastClaimLateMs = 0;

  constructor(
    private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly recorder: AttemptRecorder,
    @InjectMetric(WEBHOOK_ATTEMPTS) private readonly attemptCounter: Counter,
    @InjectMetric(WEBHOOK_ATTEMPT_DURATION) private readonly attemptDuration: Histogram,
    private readonly moneyPath: MoneyPathLoad,
    private readonly outages: DatabaseOutages,
  ) {
    // Longer than any attempt (which the timeout bounds) plus recording its result.
    this.leaseMs = 2 * config.webhookTimeoutMs + 5000;
    this.peakBudget = new PeakDeliveryBudget(config.webhookPeakDeliveriesPerSecond);
  }

  /** Look for due deliveries now, coalescing nudges that arrive while a look is going on. */
  nudge(): void {
    if (this.stopped) return;
    const quietFor = this.quietUntil - Date.now();
    if (quietFor > 0) {
      this.quietTimer ??= setTimeout(() => {
        this.quietTimer = undefined;
        this.nudge();
      }, quietFor);
      return;
    }
    if (this.pumping) {
      this.repumpRequested = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.repumpRequested) {
        this.repumpRequested = false;
        this.nudge();
      }
    });
  }

  @Interval('webhook-deliveries', TICK_MS)
  tick(): void {
    this.recorder.flushSoon();
    this.nudge();
  }

  @Interval('webhook-arrivals', ARRIVAL_SAMPLE_MS)
  async sampleArrivals(): Promise<void> {
    if (this.stopped || this.config.webhookPeakDeliveriesPerSecond === 0) return;
    try {
      this.arrivals.note(await this.deliveries.deliveriesWritten());
    } catch {
      // The database is unreachable: the claim's warning says so; the rate keeps its last samples.
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.quietTimer);
    await this.pumping;
    await this.settleAttempts(SHUTDOWN_WAIT_MS);
    // Attempts still running are abandoned, unrecorded: any instance sends them once their lease ends.
    this.stopAttempts.abort();
    await this.settleAttempts(1000);
    await this.recorder.flush();
  }

  private async settleAttempts(limitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise((resolve) => (timer = setTimeout(resolve, limitMs)));
    await Promise.race([Promise.allSettled([...this.attempts]), deadline]);
    clearTimeout(timer);
  }

  private get running(): number {
    return this.attempts.size;
  }

  private async pump(): Promise<void> {
    // One claim per look: lanes that are full, or nothing more due, would make a second one empty.
    // Finished attempts and the tick ask for the next look.
    if (this.stopped || this.running >= MAX_IN_FLIGHT) return;
    const demand = { arrivalsPerSecond: this.arrivals.perSecond, lateMs: this.lastClaimLateMs };
    const allowed = this.peakBudget.available(this.moneyPath.busy, demand);
    if (allowed < 1) {
      this.quietUntil = Date.now() + this.peakBudget.refillMs;
      this.nudge();
      return;
    }
    try {
      const claimed = await this.deliveries.claimDue(
        this.inFlight,
        MAX_IN_FLIGHT_PER_ENDPOINT,
        Math.min(MAX_IN_FLIGHT - this.running, allowed),
        this.leaseMs,
      );
      this.claimFailing = false;
      this.peakBudget.spend(claimed.length);
      // The claim takes the longest-due rows first: the first is how far behind this worker is.
      if (claimed.length > 0) this.lastClaimLateMs = claimed[0].lateMs;
      for (const delivery of claimed) this.start(delivery);
      // Caught up (little was due and the lanes are mostly idle), not held back by slow answers.
      const caughtUp = claimed.length < MAX_IN_FLIGHT_PER_ENDPOINT / 2 && this.running < MAX_IN_FLIGHT_PER_ENDPOINT / 2;
      if (caughtUp) this.quietUntil = Date.now() + QUIET_AFTER_SMALL_CLAIM_MS;
    } catch (error) {
      // Once per outage, not every tick: readiness already reports an unreachable database.
      if (!this.outages.absorbs('webhook-claims', error) && !this.claimFailing) {
        this.logger.warn({ msg: 'Claiming webhook deliveries failed; retrying every tick', error: String(error) });
      }
      this.claimFailing = true;
    }
  }

  private start(delivery: ClaimedDelivery): void {
    this.inFlight.set(delivery.endpointId, (this.inFlight.get(delivery.endpointId) ?? 0) + 1);
    const attempt = this.attempt(delivery)
      .catch((error: unknown) => this.logger.error({ msg: 'Webhook attempt crashed', error: String(error) }))
      .finally(() => {
        const left = (this.inFlight.get(delivery.endpointId) ?? 1) - 1;
        if (left > 0) this.inFlight.set(delivery.endpointId, left);
        else this.inFlight.delete(delivery.endpointId);
        this.attempts.delete(attempt);
        // Claim again once three quarters of a lane are free rather than per finished attempt: one
        // claim then takes a dozen rows, so a busy endpoint costs a claim per dozen deliveries.
        // (Other endpoints' due rows wait for their own lanes to drain, or for the tick.)
        if (left <= MAX_IN_FLIGHT_PER_ENDPOINT / 4) this.nudge();
      });
    this.attempts.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const started = process.hrtime.bigint();
    const result: AttemptResult =
      delivery.payload === null
        ? EVENT_GONE
        : await sendWebhook(
            { url: delivery.url, secret: delivery.secret, eventId: delivery.eventId, payload: delivery.payload },
            { allowHttp: this.config.webhookAllowHttp, allowPrivateNetworks: this.config.webhookAllowPrivateNetworks },
            systemResolver,
            this.config.webhookTimeoutMs,
            this.stopAttempts.signal,
          );
    if (!result.delivered && this.stopAttempts.signal.aborted) return; // abandoned at shutdown, not failed
    this.attemptDuration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    const delayMs =
      result.delivered || result === EVENT_GONE
        ? null
        : nextAttemptDelayMs(this.config.webhookRetryScheduleMs, delivery.attempts - delivery.roundStart);
    const outcome = result.delivered ? 'DELIVERED' : delayMs === null ? 'FAILED' : 'PENDING';
    this.attemptCounter.inc({
      outcome: outcome === 'DELIVERED' ? 'delivered' : outcome === 'FAILED' ? 'failed' : 'retrying',
      reason: result.delivered ? 'none' : result.kind,
    });
    const nextAttemptAt = delayMs === null ? null : new Date(Date.now() + delayMs);
    if (!result.delivered) this.logFailure(delivery, result, nextAttemptAt);
    // Not awaited: the lane is free once the answer is in. The row stays leased until its result
    // is written, so no claim takes it again meanwhile; shutdown flushes what is still queued.
    void this.recorder.record({
      id: delivery.id,
      attempts: delivery.attempts,
      statusCode: result.statusCode,
      error: result.delivered ? null : result.error,
      outcome,
      nextAttemptAt,
    });
  }

  /** One JSON line per failed attempt: ids, status and reason; never the URL, the body or the secret. */
  private logFailure(
    delivery: ClaimedDelivery,
    result: Extract<AttemptResult, { delivered: false }>,
    nextAttemptAt: Date | null,
  ): void {
    this.logger.warn({
      msg: nextAttemptAt ? 'Webhook delivery attempt failed; retry scheduled' : 'Webhook delivery failed for good',
      endpointId: delivery.endpointReferenceId,
      deliveryId: delivery.referenceId,
      eventId: delivery.eventId,
      attempt: delivery.attempts,
      statusCode: result.statusCode,
      reason: result.kind,
      error: result.error,
      nextAttemptAt: nextAttemptAt?.toISOString() ?? null,
    });
  }
}
