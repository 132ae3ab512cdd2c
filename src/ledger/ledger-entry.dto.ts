import { ApiProperty } from '@nestjs/swagger';
import { numericColumnJson } from '../common/money/numeric-text';
import type { LedgerEntryRow } from './ledger-entries.repository';
import { EntryType } from './entry-type';

export class LedgerEntryResponse {
  @ApiProperty({ type: 'integer', example: 7 }) ledgerId: RawJson;
  @ApiProperty({ format: 'uuid' }) userReferenceId: string;
  @ApiProperty({ format: 'uuid' }) transactionReferenceId: string;
  @ApiProperty({ enum: EntryType }) entryType: EntryType;
  @ApiProperty({ type: 'number', example: 100.5025 }) amount: RawJson;
  @ApiProperty({ type: 'number', example: 150.7576 }) balanceBefore: RawJson;
  @ApiProperty({ type: 'number', example: 50.2551 }) balanceAfter: RawJson;
  @ApiProperty({ format: 'date-time' }) createdAt: string;

  /** The one mapping from a ledger_entries row (ledger-entries.repository.ts). */
  static of(row: LedgerEntryRow, userReferenceId: string): LedgerEntryResponse {
    return {
      ledgerId: JSON.rawJSON(row.id),
      userReferenceId,
      transactionReferenceId: row.transactionReferenceId,
      entryType: row.entryType,
      amount: numericColumnJson(row.amount),
      balanceBefore: numericColumnJson(row.balanceBefore),
      balanceAfter: numericColumnJson(row.balanceAfter),
      createdAt: row.createdAt.toISOString(),
    };
  }
}
