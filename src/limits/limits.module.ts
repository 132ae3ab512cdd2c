import { Module } from '@nestjs/common';
import { LimitsController } from './limits.controller';
import { LimitsService } from './limits.service';

/** Limits and account controls (README "Limits and controls"): enforced in the money SQL, viewed and set here. */
@Module({
  controllers: [LimitsController],
  providers: [LimitsService],
  exports: [LimitsService],
})
export class LimitsModule {}
