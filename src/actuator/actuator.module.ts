// Owns no table: /actuator/* (index, health and probes, info, the metric catalog), the pool and primary metrics.
// Readiness reads the database, the outbox relay and the disk-full window; it writes nothing.
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OutboxModule } from '../outbox/outbox.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { ActuatorIndexController } from './actuator-index.controller';
import { DatabaseAvailabilityMetrics, databaseAvailabilityMetricProviders } from './database-availability-metrics';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { InfoController } from './info.controller';
import { MetricsController } from './metrics.controller';
import { PoolMetrics, poolMetricProviders } from './pool-metrics';
import { ReadinessMetrics, readinessMetricProviders } from './readiness-metrics';

/** /actuator/*: the index, health and probes, info, metrics (the scrape endpoint lives in MetricsModule). */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), TransactionsModule, OutboxModule],
  controllers: [ActuatorIndexController, HealthController, InfoController, MetricsController],
  providers: [
    HealthService,
    PoolMetrics,
    ...poolMetricProviders,
    ReadinessMetrics,
    ...readinessMetricProviders,
    DatabaseAvailabilityMetrics,
    ...databaseAvailabilityMetricProviders,
  ],
})
export class ActuatorModule {}
