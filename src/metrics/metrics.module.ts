// Owns no table: the Prometheus registry every module declares its metrics in,
// /actuator/prometheus, and the HTTP request timings.
import { Module } from '@nestjs/common';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { HttpMetrics, httpMetricProviders } from './http-metrics';
import { memoryLimitProviders } from './memory-limit';
import { PublicPrometheusController } from './prometheus.controller';

/**
 * Prometheus registry for the whole app (global): modules declare their metrics with
 * makeCounterProvider / makeGaugeProvider / makeHistogramProvider and inject them.
 * Also times every HTTP request (http_server_requests_seconds).
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
  providers: [HttpMetrics, ...httpMetricProviders, ...memoryLimitProviders],
})
export class MetricsModule {}
