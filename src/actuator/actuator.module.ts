import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { TransactionsModule } from '../transactions/transactions.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { InfoController } from './info.controller';
import { PoolMetrics, poolMetricProviders } from './pool-metrics';

/** /actuator/*: health and probes, info, the metric catalog (the scrape endpoint lives in MetricsModule). */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), TransactionsModule],
  controllers: [HealthController, InfoController],
  providers: [HealthService, PoolMetrics, ...poolMetricProviders],
})
export class ActuatorModule {}
