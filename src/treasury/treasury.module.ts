// Owns no table of its own: deposits (admin) move money from the treasury accounts in users
// through the money SQL functions; opening balances go through the ledger module.
import { Module } from '@nestjs/common';
import { MovementsModule } from '../movements/movements.module';
import { TransactionsModule } from '../transactions/transactions.module';
import { DepositService } from './deposit.service';
import { DepositsController } from './deposits.controller';

/**
 * The treasury's operations: deposits (admin), through the shared movement machinery (movements/);
 * TransactionsModule only for the per-user movement rate limit. Opening balances go through the ledger module.
 */
@Module({
  imports: [TransactionsModule, MovementsModule],
  controllers: [DepositsController],
  providers: [DepositService],
})
export class TreasuryModule {}
