// Owns limit_overrides, limits_daily_usage and admin_actions: per-user limits, freezes and their
// history; the money SQL enforces them, this module views and sets them.
import { Global, Module } from '@nestjs/common';
import { LimitsController } from './limits.controller';
import { LimitsMetrics, limitsMetricProviders } from './limits-metrics';
import { LimitsService } from './limits.service';

/**
 * Limits and account controls (README "Limits and controls"): enforced in the money SQL, viewed and
 * set here. Global so that the one outcome renderer can count refusals.
 */
@Global()
@Module({
  controllers: [LimitsController],
  providers: [LimitsService, LimitsMetrics, ...limitsMetricProviders],
  exports: [LimitsService, LimitsMetrics],
})
export class LimitsModule {}
