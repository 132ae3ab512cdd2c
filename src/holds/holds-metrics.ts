import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectMetric, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Gauge } from 'prom-client';
import { HoldsRepository } from './holds.repository';

export const HOLDS_OUTSTANDING = 'payments_holds_outstanding';
export const HOLDS_OUTSTANDING_RUPEES = 'payments_holds_outstanding_rupees';
/** Shared by every instance; a few seconds late is fine for a dashboard. */
const SAMPLE_MS = 10_000;

export const holdsMetricProviders = [
  makeGaugeProvider({
    name: HOLDS_OUTSTANDING,
    help: 'Holds that are HELD (placed, neither fully captured nor closed)',
  }),
  makeGaugeProvider({
    name: HOLDS_OUTSTANDING_RUPEES,
    help: 'INR the HELD holds still reserve (amount less captures)',
  }),
];

/** Both gauges sampled from PostgreSQL. */
@Injectable()
export class HoldsMetrics implements OnModuleInit, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @InjectMetric(HOLDS_OUTSTANDING) private readonly outstanding: Gauge,
    @InjectMetric(HOLDS_OUTSTANDING_RUPEES) private readonly outstandingRupees: Gauge,
    private readonly holds: HoldsRepository,
  ) {}

  onModuleInit(): void {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async sample(): Promise<void> {
    try {
      const { count, remaining } = await this.holds.outstanding();
      this.outstanding.set(count);
      this.outstandingRupees.set(Number(remaining));
    } catch {
      // The database is away: the gauges keep their last values and the next sample heals them.
    }
  }
}
