import { ApiProperty } from '@nestjs/swagger';
import { moneyJson } from '../common/money/money';
import type { Transaction } from './transaction.entity';

/** Same fields, same order as the body the transfer function writes (and replays). */
export class TransactionResponse {
  @ApiProperty({ type: 'integer', example: 42 }) transactionId: RawJson;
  @ApiProperty({ format: 'uuid' }) referenceId: string;
  @ApiProperty({ example: 'alice@okbank' }) senderUpiId: string;
  @ApiProperty({ example: 'bob@okbank' }) receiverUpiId: string;
  @ApiProperty({ type: 'number', example: 100.5 }) amount: RawJson;
  @ApiProperty({ example: 'COMPLETED' }) status: string;
  @ApiProperty({ example: 'TRANSFER' }) type: string;
  @ApiProperty({ example: 'dinner', nullable: true }) note: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;

  static of(transaction: Transaction): TransactionResponse {
    return {
      transactionId: JSON.rawJSON(transaction.id),
      referenceId: transaction.referenceId,
      senderUpiId: transaction.senderUpiId,
      receiverUpiId: transaction.receiverUpiId,
      amount: moneyJson(transaction.amount),
      status: transaction.status,
      type: transaction.type,
      note: transaction.note,
      createdAt: transaction.createdAt.toISOString(),
    };
  }
}
