import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Gauge } from 'prom-client';
import { DatabaseOutages } from '../common/errors/database-outages';
import { AppConfig } from '../config/app-config';
import { DISPUTES, DISPUTES_OVERDUE } from './dispute-metrics';
import { DisputesRepository } from './disputes.repository';

const TICK_MS = 1000;
/** Disputes escalated per statement; a tick goes on while a whole batch was due. */
const BATCH = 100;

/**
 * Silence escalates: every second each instance escalates the OPEN disputes past respondBy. The
 * claim is in PostgreSQL (dispute_escalate_due.sql: FOR UPDATE SKIP LOCKED, re-read under the lock),
 * so each dispute escalates once however many instances run. Then it reads the gauges.
 */
@Injectable()
export class DisputeEscalationJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DisputeEscalation');
  private running: Promise<void> | undefined;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly disputes: DisputesRepository,
    private readonly config: AppConfig,
    private readonly outages: DatabaseOutages,
    @InjectMetric(DISPUTES) private readonly inProgress: Gauge,
    @InjectMetric(DISPUTES_OVERDUE) private readonly overdue: Gauge,
  ) {}

  onApplicationBootstrap(): void {
    // Scraped as 0 until the first tick has read the table.
    this.inProgress.set({ status: 'OPEN' }, 0);
    this.inProgress.set({ status: 'ESCALATED' }, 0);
    this.overdue.set(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  @Interval('dispute-escalation', TICK_MS)
  tick(): void {
    if (this.stopped || this.running) return;
    this.running = this.escalateAndCount().finally(() => (this.running = undefined));
  }

  private async escalateAndCount(): Promise<void> {
    try {
      let escalated = 0;
      let batch: number;
      do {
        batch = await this.disputes.escalateDue(this.config.disputeResolutionSeconds, BATCH);
        escalated += batch;
      } while (batch === BATCH && !this.stopped);
      if (escalated > 0) this.logger.log({ msg: 'Disputes escalated: no answer by respondBy', escalated });
      const counts = await this.disputes.gauges();
      this.inProgress.set({ status: 'OPEN' }, counts.open);
      this.inProgress.set({ status: 'ESCALATED' }, counts.escalated);
      this.overdue.set(counts.overdue);
      this.failing = false;
    } catch (error) {
      // Once per outage, not every tick: what is due stays due and escalates on a later tick.
      if (!this.outages.absorbs('dispute-escalation', error) && !this.failing) {
        this.logger.warn({ msg: 'Escalating disputes failed; retrying', error: String(error) });
      }
      this.failing = true;
    }
  }
}
