import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { RegistrationRateLimiter } from './registration-rate-limiter';
import { UpiVerificationService } from './upi-verification.service';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Module({
  imports: [LedgerModule],
  controllers: [UsersController],
  providers: [UsersService, UpiVerificationService, RegistrationRateLimiter],
  exports: [UsersService, UpiVerificationService],
})
export class UsersModule {}
