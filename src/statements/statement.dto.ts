import { ApiProperty } from '@nestjs/swagger';
import { moneyJson } from '../common/money/money';
import type { BalancePoint } from './statements.service';

export class StatementEntryResponse {
  @ApiProperty({ format: 'date-time', example: '2026-11-20T09:15:02.123Z' }) createdAt: string;
  @ApiProperty({ format: 'uuid', example: '0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b' }) transactionReferenceId: string;
  @ApiProperty({
    example: 'TRANSFER',
    description: 'TRANSFER, or DEPOSIT for money entering the system (an opening balance at registration)',
  })
  type: string;
  @ApiProperty({ enum: ['DEBIT', 'CREDIT'], example: 'DEBIT' }) entryType: string;
  @ApiProperty({
    type: 'string',
    example: 'bob@okbank',
    nullable: true,
    description: 'The other party: the receiver of a DEBIT, the sender of a CREDIT; null for an opening balance',
  })
  counterpartyUpiId: string | null;
  @ApiProperty({ type: 'number', example: 120.5025 }) amount: RawJson;
  @ApiProperty({ type: 'number', example: 379.5 }) balanceAfter: RawJson;
  @ApiProperty({ type: 'string', example: 'dinner', nullable: true }) note: string | null;
}

export class StatementResponse {
  @ApiProperty({ format: 'date-time', example: '2026-11-01T00:00:00.000Z', description: 'Inclusive' }) from: string;
  @ApiProperty({ format: 'date-time', example: '2026-12-01T00:00:00.000Z', description: 'Exclusive' }) to: string;
  @ApiProperty({ type: 'number', example: 500, description: 'The balance at from' }) openingBalance: RawJson;
  @ApiProperty({ type: 'number', example: 379.5, description: 'The balance at to: opening + credits - debits' })
  closingBalance: RawJson;
  @ApiProperty({ type: [StatementEntryResponse], description: 'Oldest first' }) entries: StatementEntryResponse[];
}

export class BalancePointResponse {
  @ApiProperty({ format: 'date-time', example: '2026-11-21T00:00:00.000Z', description: 'End of the interval' })
  at: string;
  @ApiProperty({ type: 'number', example: 379.5 }) balance: RawJson;

  static of(point: BalancePoint): BalancePointResponse {
    return { at: point.at.toISOString(), balance: moneyJson(point.balance) };
  }
}
