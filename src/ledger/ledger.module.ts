// Owns ledger_entries (read here; the movement functions append) and ledger_checkpoints (npm run archive).
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
