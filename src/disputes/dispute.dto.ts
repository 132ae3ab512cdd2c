import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type Big from 'big.js';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { moneyJson } from '../common/money/money';
import { IsMoney, ToMoney } from '../common/money/money.decorators';
import { IsVisibleText } from '../common/text/visible-text';
import { MAX_TRANSFER, MIN_TRANSFER } from '../transactions/transfer.dto';

export const DISPUTE_REASONS = ['WRONG_RECIPIENT', 'WRONG_AMOUNT', 'NOT_RECEIVED', 'DUPLICATE', 'FRAUD', 'OTHER'];
export const DISPUTE_STATUSES = ['OPEN', 'ESCALATED', 'RESOLVED'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
export const DISPUTE_RESOLUTIONS = ['REFUNDED', 'REJECTED', 'WITHDRAWN'];
export const DISPUTE_DECISIONS = ['REFUND', 'REJECT'] as const;

/** Body of POST /api/v1/transactions/{referenceId}/disputes. */
export class OpenDisputeRequest {
  @ApiProperty({ enum: DISPUTE_REASONS, example: 'WRONG_AMOUNT' })
  @IsIn(DISPUTE_REASONS, { message: `reason must be one of: ${DISPUTE_REASONS.join(', ')}` })
  reason: string;

  @ApiPropertyOptional({
    type: 'number',
    example: 40.25,
    minimum: 0.01,
    maximum: 1000000,
    description: 'INR, up to 4 decimals (HALF_EVEN); defaults to what of the transfer is not yet reversed',
  })
  @IsOptional()
  @ToMoney()
  @IsMoney({ min: MIN_TRANSFER, max: MAX_TRANSFER })
  amount?: Big;

  @ApiPropertyOptional({ example: 'Charged twice for one order', maxLength: 500 })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(500)
  description?: string;
}

/** Body of POST /api/v1/disputes/{referenceId}/reject: the payee says why. */
export class RejectDisputeRequest {
  @ApiProperty({ example: 'The order was delivered on 2026-11-20', maxLength: 255 })
  @IsString()
  @IsNotEmpty()
  @IsVisibleText()
  @MaxLength(255)
  note: string;
}

/** Body of POST /api/v1/disputes/{referenceId}/accept and .../withdraw: an optional note. */
export class DisputeNoteRequest {
  @ApiPropertyOptional({ example: 'Refunding the duplicate charge', maxLength: 255 })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(255)
  note?: string;
}

/** Body of POST /api/v1/admin/disputes/{referenceId}/resolve. */
export class ResolveDisputeRequest {
  @ApiProperty({ enum: DISPUTE_DECISIONS, example: 'REFUND' })
  @IsIn(DISPUTE_DECISIONS, { message: `decision must be one of: ${DISPUTE_DECISIONS.join(', ')}` })
  decision: (typeof DISPUTE_DECISIONS)[number];

  @ApiPropertyOptional({
    type: 'number',
    example: 40.25,
    minimum: 0.01,
    maximum: 1000000,
    description: "REFUND only: defaults to the dispute's amount, capped at what is not yet reversed",
  })
  @IsOptional()
  @ToMoney()
  @IsMoney({ min: MIN_TRANSFER, max: MAX_TRANSFER })
  amount?: Big;

  @ApiProperty({ example: 'Merchant confirmed the duplicate charge', maxLength: 255 })
  @IsString()
  @IsNotEmpty()
  @IsVisibleText()
  @MaxLength(255)
  note: string;
}

export class DisputeHistoryLine {
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ enum: DISPUTE_STATUSES, example: 'OPEN' }) status: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'alice@okbank',
    description: 'Who made the change; null when the clock escalated it',
  })
  byUpiId: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'Charged twice for one order' }) note: string | null;
}

/** The dispute as dispute_json.sql writes it (amount as exact text, internal id beside it). */
export interface DisputeFields {
  id: string;
  referenceId: string;
  transactionReferenceId: string;
  raisedByUpiId: string;
  counterpartyUpiId: string;
  reason: string;
  amount: string;
  description: string | null;
  status: DisputeStatus;
  resolution: string | null;
  respondBy: string;
  resolveBy: string;
  overdue: boolean;
  refundTransactionReferenceId: string | null;
  createdAt: string;
  updatedAt: string;
  history: DisputeHistoryLine[];
}

/** One Dispute body for every answer: same fields, same order. */
export class DisputeResponse {
  @ApiProperty({ format: 'uuid' }) referenceId: string;
  @ApiProperty({ format: 'uuid', description: 'The disputed transfer' }) transactionReferenceId: string;
  @ApiProperty({ example: 'alice@okbank', description: 'The payer, who raised it' }) raisedByUpiId: string;
  @ApiProperty({ example: 'bob@okbank', description: 'The payee, who answers it' }) counterpartyUpiId: string;
  @ApiProperty({ enum: DISPUTE_REASONS, example: 'WRONG_AMOUNT' }) reason: string;
  @ApiProperty({ type: 'number', example: 40.25 }) amount: RawJson;
  @ApiProperty({ type: 'string', nullable: true, example: 'Charged twice for one order' }) description: string | null;
  @ApiProperty({ enum: DISPUTE_STATUSES, example: 'OPEN' }) status: string;
  @ApiProperty({ enum: DISPUTE_RESOLUTIONS, nullable: true, example: null }) resolution: string | null;
  @ApiProperty({ format: 'date-time', description: 'The payee answers by then, or the dispute escalates' })
  respondBy: string;
  @ApiProperty({ format: 'date-time', description: 'The turnaround deadline of the escalated dispute' })
  resolveBy: string;
  @ApiProperty({ description: 'ESCALATED and past resolveBy' }) overdue: boolean;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The REVERSAL that refunded it' })
  refundTransactionReferenceId: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
  @ApiProperty({ type: [DisputeHistoryLine] }) history: DisputeHistoryLine[];

  static of(this: void, fields: DisputeFields): DisputeResponse {
    return {
      referenceId: fields.referenceId,
      transactionReferenceId: fields.transactionReferenceId,
      raisedByUpiId: fields.raisedByUpiId,
      counterpartyUpiId: fields.counterpartyUpiId,
      reason: fields.reason,
      amount: moneyJson(fields.amount),
      description: fields.description,
      status: fields.status,
      resolution: fields.resolution,
      respondBy: fields.respondBy,
      resolveBy: fields.resolveBy,
      overdue: fields.overdue,
      refundTransactionReferenceId: fields.refundTransactionReferenceId,
      createdAt: fields.createdAt,
      updatedAt: fields.updatedAt,
      history: fields.history,
    };
  }
}
