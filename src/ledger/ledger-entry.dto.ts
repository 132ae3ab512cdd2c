import { ApiProperty } from '@nestjs/swagger';
import { moneyJson } from '../common/money/money';
import { EntryType, type LedgerEntry } from './ledger-entry.entity';

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
}
