// Owns no table: the payee's name before paying, read through UsersService and the UPI verification
// client; its look-up counts are rows of transfer_rate_limits under their own prefix.
import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { PayeeLookupRateLimiter } from './payee-lookup-rate-limiter';
import { PayeesController } from './payees.controller';
import { PayeesService } from './payees.service';

@Module({
  imports: [UsersModule],
  controllers: [PayeesController],
  providers: [PayeesService, PayeeLookupRateLimiter],
})
export class PayeesModule {}
