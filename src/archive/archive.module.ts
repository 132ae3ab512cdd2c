// Owns archived_months: the months of money records that npm run archive (scripts/archive/archive.ts)
// wrote to files and dropped from the live tables. The tool is its only writer; statements read it
// to refuse a period that reaches archived history. The files, their checks and the restore live
// here too (month-archive.ts), run by the tool and by the audit (--archive) on their own connection.
import { Module } from '@nestjs/common';
import { ArchivedMonthsRepository } from './archived-months.repository';

@Module({ providers: [ArchivedMonthsRepository], exports: [ArchivedMonthsRepository] })
export class ArchiveModule {}
