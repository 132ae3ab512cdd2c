import { ApiProperty } from '@nestjs/swagger';
import { moneyJson } from '../common/money/money';
import { numericColumnJson } from '../common/money/numeric-text';
import { EntryType, type LedgerEntry } from './ledger-entry.entity';

/** A ledger_entries row as pg returns it: bigint and numeric as text. */
export interface LedgerEntryRow {
  id: string;
  transaction_reference_id: string;
  entry_type: EntryType;
  amount: string;
  balance_before: string;
  balance_after: string;
  created_at: Date;
}

export class LedgerEntryResponse {
  @ApiProperty({ type: 'integer', example: 7 }) ledgerId: RawJson;
  @ApiProperty({ format: 'uuid' }) userReferenceId: string;
  @ApiProperty({ format: 'uuid' }) transactionReferenceId: string;
  @ApiProperty({ enum: EntryType }) entryType: EntryType;
  @ApiProperty({ type: 'number', example: 100 }) amount: RawJson;
  @ApiProperty({ type: 'number', example: 150 }) balanceBefore: RawJson;
  @ApiProperty({ type: 'number', example: 50 }) balanceAfter: RawJson;
  @ApiProperty({ format: 'date-time' }) createdAt: string;

  static of(entry: LedgerEntry, userReferenceId: string): LedgerEntryResponse {
    return {
      ledgerId: JSON.rawJSON(entry.id),
      userReferenceId,
      transactionReferenceId: entry.transactionReferenceId,
      entryType: entry.entryType,
      amount: moneyJson(entry.amount),
      balanceBefore: moneyJson(entry.balanceBefore),
      balanceAfter: moneyJson(entry.balanceAfter),
      createdAt: entry.createdAt.toISOString(),
    };
  }

  static fromRow(row: LedgerEntryRow, userReferenceId: string): LedgerEntryResponse {
    return {
      ledgerId: JSON.rawJSON(row.id),
      userReferenceId,
      transactionReferenceId: row.transaction_reference_id,
      entryType: row.entry_type,
      amount: numericColumnJson(row.amount),
      balanceBefore: numericColumnJson(row.balance_before),
      balanceAfter: numericColumnJson(row.balance_after),
      createdAt: row.created_at.toISOString(),
    };
  }
}
