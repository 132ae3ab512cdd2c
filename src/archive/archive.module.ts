// Owns archived_months: the months npm run archive took out of the live money records (its only writer).
// Statements read it to refuse archived periods; month-archive.ts holds the files, checks and restore.
import { Module } from '@nestjs/common';
import { ArchivedMonthsRepository } from './archived-months.repository';

@Module({ providers: [ArchivedMonthsRepository], exports: [ArchivedMonthsRepository] })
export class ArchiveModule {}
