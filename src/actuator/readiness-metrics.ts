import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { InjectMetric, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Gauge } from 'prom-client';
import { HealthService } from './health.service';

const READY = 'payments_ready';

export const readinessMetricProviders = [
  makeGaugeProvider({ name: READY, help: 'Readiness as /actuator/health/readiness reports it: 1 UP, 0 DOWN' }),
];

/**
 * Readiness as a metric, so an alert fires when an instance drops out of rotation even though it
 * still answers scrapes (database lost, essential circuit open).
 */
@Injectable()
export class ReadinessMetrics implements OnApplicationBootstrap {
  constructor(
    private readonly health: HealthService,
    @InjectMetric(READY) private readonly ready: Gauge,
  ) {}

  onApplicationBootstrap(): Promise<void> {
    return this.sample();
  }

  @Interval('readiness-metric', 5000)
  async sample(): Promise<void> {
    const status = await this.health.report().then(
      (report) => report.status,
      () => 'DOWN',
    );
    this.ready.set(status === 'UP' ? 1 : 0);
  }
}
