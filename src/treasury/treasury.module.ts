// Owns no table of its own: deposits (admin) move money from the treasury accounts in users
// through the money SQL functions; opening balances go through the ledger module.
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
