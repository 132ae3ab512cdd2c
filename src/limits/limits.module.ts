// Owns limit_overrides, limits_daily_usage and admin_actions: per-user limits, freezes and their
// history; the money SQL enforces them, this module views and sets them.
import { Global, Module } from '@nestjs/common';
import { LimitsController } from './limits.controller';
import { LimitsMetrics, limitsMetricProviders } from './limits-metrics';
import { LimitsRepository } from './limits.repository';
import { LimitsService } from './limits.service';
import { UsersModule } from '../users/users.module';

/**
 * Limits and account controls (docs/api-guide.md "Limits and account controls"): enforced in the money SQL, viewed and
 * set here. Global so that the one outcome renderer can count refusals.
 */
@Global()
@Module({
  imports: [UsersModule],
  controllers: [LimitsController],
  providers: [LimitsService, LimitsRepository, LimitsMetrics, ...limitsMetricProviders],
  exports: [LimitsService, LimitsMetrics],
})
export class LimitsModule {}
