// Owns no table: statements and balance history, read from ledger_entries and transactions
// in one snapshot (JSON or streamed CSV).
import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { StatementsController } from './statements.controller';
import { StatementsService } from './statements.service';

/** Statements and balance history: reads of a user's ledger over a period. */
@Module({
  imports: [UsersModule],
  controllers: [StatementsController],
  providers: [StatementsService],
})
export class StatementsModule {}
