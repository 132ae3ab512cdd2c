import { Module } from '@nestjs/common';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { PublicPrometheusController } from './prometheus.controller';

/**
 * Prometheus registry for the whole app (global): modules declare their metrics with
 * makeCounterProvider / makeGaugeProvider / makeHistogramProvider and inject them.
 */
@Module({
  imports: [
    PrometheusModule.register({
      global: true,
      path: '/actuator/prometheus',
      controller: PublicPrometheusController,
      defaultMetrics: { enabled: true },
    }),
  ],
})
export class MetricsModule {}
