import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { DepositService } from './deposit.service';
import { DepositsController } from './deposits.controller';

/** The treasury's operations: deposits (admin). Opening balances go through the ledger module. */
@Module({
  imports: [TransactionsModule, IdempotencyModule],
  controllers: [DepositsController],
  providers: [DepositService],
})
export class TreasuryModule {}
