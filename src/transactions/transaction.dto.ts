import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Money, moneyJson } from '../common/money/money';
import type { TransactionRow } from './transactions.repository';

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
  /** Only a REVERSAL has one. */
  originalReferenceId?: string | null;
  /** Only a TRANSFER with reversals has one above zero. */
  reversedAmount?: string;
  /** Only a TRANSFER that paid a payment request has one. */
  paymentRequestReferenceId?: string;
  /** Only a TRANSFER that captured a hold (src/holds) has one. */
  holdReferenceId?: string | null;
}

/** One Transaction body for reads, 201s and their replays: same fields, same order, same bytes. */
export class TransactionResponse {
  @ApiProperty({ type: 'integer', example: 42 }) transactionId: RawJson;
  @ApiProperty({ format: 'uuid' }) referenceId: string;
  @ApiProperty({ example: 'alice@okbank' }) senderUpiId: string;
  @ApiProperty({ example: 'bob@okbank' }) receiverUpiId: string;
  @ApiProperty({ type: 'number', example: 100.5025 }) amount: RawJson;
  @ApiProperty({ enum: ['COMPLETED', 'PARTIALLY_REVERSED', 'REVERSED'], example: 'COMPLETED' }) status: string;
  @ApiProperty({ enum: ['TRANSFER', 'DEPOSIT', 'REVERSAL'], example: 'TRANSFER' }) type: string;
  @ApiProperty({ type: 'string', example: 'dinner', nullable: true }) note: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'REVERSAL only: the referenceId of the transfer it reverses',
  })
  originalReferenceId?: string;
  @ApiPropertyOptional({
    type: 'number',
    example: 40.2525,
    description: 'TRANSFER only, once reversed in part or in full: the amount returned so far',
  })
  reversedAmount?: RawJson;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'A TRANSFER that paid a payment request, in the answer to that payment: the request',
  })
  paymentRequestReferenceId?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'A TRANSFER that captured a hold: the hold' })
  holdReferenceId?: string;

  /** The one mapping from a transactions row (transactions.repository.ts). */
  static of(this: void, row: TransactionRow): TransactionResponse {
    return TransactionResponse.from({
      ...row,
      transactionId: row.id,
      createdAt: row.createdAt.toISOString(),
    });
  }

  /** The reversal fields are added only where they mean something, so a plain transfer's body is the spec's. */
  static from(fields: TransactionFields): TransactionResponse {
    const response: TransactionResponse = {
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
    if (fields.originalReferenceId) response.originalReferenceId = fields.originalReferenceId;
    if (fields.reversedAmount !== undefined && new Money(fields.reversedAmount).gt(0)) {
      response.reversedAmount = moneyJson(fields.reversedAmount);
    }
    if (fields.paymentRequestReferenceId) response.paymentRequestReferenceId = fields.paymentRequestReferenceId;
    if (fields.holdReferenceId) response.holdReferenceId = fields.holdReferenceId;
    return response;
  }
}
