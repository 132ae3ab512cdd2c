import { ApiProperty } from '@nestjs/swagger';
import { moneyJson } from '../common/money/money';
import type { Transaction } from './transaction.entity';

/** The fields of a transaction as every answer writes them, the ids and amount as exact text. */
export interface TransactionFields {
  transactionId: string;
  referenceId: string;
  senderUpiId: string;
  receiverUpiId: string;
  amount: string;
  status: string;
  type: string;
  note: string | null;
  createdAt: string;
}

/** One Transaction body for reads, 201s and their replays: same fields, same order, same bytes. */
export class TransactionResponse {
  @ApiProperty({ type: 'integer', example: 42 }) transactionId: RawJson;
  @ApiProperty({ format: 'uuid' }) referenceId: string;
  @ApiProperty({ example: 'alice@okbank' }) senderUpiId: string;
  @ApiProperty({ example: 'bob@okbank' }) receiverUpiId: string;
  @ApiProperty({ type: 'number', example: 100.5 }) amount: RawJson;
  @ApiProperty({ enum: ['COMPLETED', 'PARTIALLY_REVERSED', 'REVERSED'], example: 'COMPLETED' }) status: string;
  @ApiProperty({ enum: ['TRANSFER', 'DEPOSIT', 'REVERSAL'], example: 'TRANSFER' }) type: string;
  @ApiProperty({ type: 'string', example: 'dinner', nullable: true }) note: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;

  static of(transaction: Transaction): TransactionResponse {
    return TransactionResponse.from({
      transactionId: transaction.id,
      referenceId: transaction.referenceId,
      senderUpiId: transaction.senderUpiId,
      receiverUpiId: transaction.receiverUpiId,
      amount: transaction.amount.toString(),
      status: transaction.status,
      type: transaction.type,
      note: transaction.note,
      createdAt: transaction.createdAt.toISOString(),
    });
  }

  static from(fields: TransactionFields): TransactionResponse {
    return {
      transactionId: JSON.rawJSON(fields.transactionId),
      referenceId: fields.referenceId,
      senderUpiId: fields.senderUpiId,
      receiverUpiId: fields.receiverUpiId,
      amount: moneyJson(fields.amount),
      status: fields.status,
      type: fields.type,
      note: fields.note,
      createdAt: fields.createdAt,
    };
  }
}
