// Owns ledger_entries: its repository (reads; the movement functions append) and the ledger route;
// and ledger_checkpoints, each account's chain head at an archived month's cut (npm run archive writes them).
// Other modules call LedgerEntriesRepository (the opening balance at registration); nobody else writes it.
import { Module } from '@nestjs/common';
import { LedgerEntriesRepository } from './ledger-entries.repository';
import { LedgerController } from './ledger.controller';
import { LedgerService } from './ledger.service';

@Module({
  controllers: [LedgerController],
  providers: [LedgerService, LedgerEntriesRepository],
  exports: [LedgerEntriesRepository],
})
export class LedgerModule {}
