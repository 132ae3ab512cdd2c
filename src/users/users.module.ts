// Owns users: the accounts, their registration (with the opening balance) and the admin lists.
// Others go through UsersService or UsersRepository (freezes); balances are written only by the money functions.
import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { RegistrationRateLimiter } from './registration-rate-limiter';
import { UpiVerificationService } from './upi-verification.service';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [LedgerModule],
  controllers: [UsersController],
  providers: [UsersService, UsersRepository, UpiVerificationService, RegistrationRateLimiter],
  exports: [UsersService, UsersRepository, UpiVerificationService],
})
export class UsersModule {}
