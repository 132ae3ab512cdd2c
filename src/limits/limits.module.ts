import { Module } from '@nestjs/common';
import { LimitsController } from './limits.controller';
import { LimitsService } from './limits.service';
import { LimitsSession } from './limits-session';

/** Limits and account controls (README "Limits and controls"): enforced in the money SQL, viewed and set here. */
@Module({
  controllers: [LimitsController],
  providers: [LimitsService, LimitsSession],
  exports: [LimitsService],
})
export class LimitsModule {}
