// Owns no table: statements and balance history, read through the ledger's repository in one snapshot
// (JSON or streamed CSV); a period that reaches an archived month is refused (archive's repository).
import { Module } from '@nestjs/common';
import { ArchiveModule } from '../archive/archive.module';
import { LedgerModule } from '../ledger/ledger.module';
import { UsersModule } from '../users/users.module';
import { StatementsController } from './statements.controller';
import { StatementsService } from './statements.service';

/** Statements and balance history: reads of a user's ledger over a period. */
@Module({
  imports: [UsersModule, LedgerModule, ArchiveModule],
  controllers: [StatementsController],
  providers: [StatementsService],
})
export class StatementsModule {}
