import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import Big from 'big.js';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateBy, ValidateIf } from 'class-validator';
import { JsonNumberText } from '../common/money/json-body';
import { moneyJson } from '../common/money/money';
import { IsMoney, ToMoney } from '../common/money/money.decorators';
import { IsVisibleText } from '../common/text/visible-text';
import { MAX_TRANSFER, MIN_TRANSFER } from '../transactions/transfer.dto';
import { upiPayUri } from './upi-uri';

export const PAYMENT_REQUEST_STATUSES = ['OPEN', 'PAID', 'CANCELLED', 'EXPIRED'] as const;
export type PaymentRequestStatus = (typeof PAYMENT_REQUEST_STATUSES)[number];
export const DEFAULT_EXPIRY_SECONDS = 900;

/** A JSON number arrives as its source text (json-body.ts); a whole number of seconds is read as a number. */
function ToInteger(): PropertyDecorator {
  return Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const raw = obj[key];
    return raw instanceof JsonNumberText ? Number(raw.source) : raw;
  });
}

/** An amount a UPI link can carry: whole paise. */
function AtMostTwoDecimals(): PropertyDecorator {
  return ValidateBy({
    name: 'atMostTwoDecimals',
    validator: {
      validate: (value: unknown) => !(value instanceof Big) || value.round(2).eq(value),
      defaultMessage: () => 'amount must have at most 2 decimals',
    },
  });
}

export class CreatePaymentRequest {
  @ApiPropertyOptional({
    type: 'number',
    example: 250.5,
    minimum: 0.01,
    maximum: 1000000,
    description: 'INR, at most 2 decimals; leave it out for an open amount that the payer chooses',
  })
  // Absent is an open amount; an explicit null is a mistake, not "any amount" (422).
  @ValidateIf((_, value) => value !== undefined)
  @ToMoney()
  @IsMoney({ min: MIN_TRANSFER, max: MAX_TRANSFER })
  @AtMostTwoDecimals()
  amount?: Big;

  @ApiPropertyOptional({ example: 'Dinner at Toit', maxLength: 255 })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(255)
  note?: string;

  @ApiPropertyOptional({
    type: 'integer',
    example: 900,
    minimum: 60,
    maximum: 604800,
    description: `Seconds until the request expires; ${DEFAULT_EXPIRY_SECONDS} when left out`,
  })
  @IsOptional()
  @ToInteger()
  @IsInt()
  @Min(60)
  @Max(604800)
  expiresInSeconds?: number;
}

export class PayPaymentRequest {
  @ApiPropertyOptional({
    type: 'number',
    example: 250.5,
    minimum: 0.01,
    maximum: 1000000,
    description: "Required when the request's amount is open; otherwise absent or equal to it (422 on amount)",
  })
  // Absent is an open amount; an explicit null is a mistake, not "any amount" (422).
  @ValidateIf((_, value) => value !== undefined)
  @ToMoney()
  @IsMoney({ min: MIN_TRANSFER, max: MAX_TRANSFER })
  amount?: Big;

  @ApiPropertyOptional({ example: 'Dinner at Toit', maxLength: 255, description: "Defaults to the request's note" })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(255)
  note?: string;
}

/** A row of payment_requests, as the repository reads it (status already EXPIRED when past expiry). */
export interface PaymentRequestRecord {
  referenceId: string;
  payeeUpiId: string;
  payeeName: string;
  amount: string | null;
  note: string | null;
  status: PaymentRequestStatus;
  createdAt: Date;
  expiresAt: Date;
  paidAt: Date | null;
  transactionReferenceId: string | null;
}

export class PaymentRequestResponse {
  @ApiProperty({ format: 'uuid' }) referenceId: string;
  @ApiProperty({ example: 'bob@okbank' }) payeeUpiId: string;
  @ApiProperty({ example: 'Bob Kumar' }) payeeName: string;
  @ApiProperty({ type: 'number', nullable: true, example: 250.5, description: 'null: an open amount' })
  amount: RawJson | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'Dinner at Toit' }) note: string | null;
  @ApiProperty({ enum: PAYMENT_REQUEST_STATUSES, example: 'OPEN' }) status: PaymentRequestStatus;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) paidAt: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) transactionReferenceId: string | null;
  @ApiProperty({
    example:
      'upi://pay?pa=bob@okbank&pn=Bob%20Kumar&am=250.50&cu=INR&tn=Dinner%20at%20Toit&tr=0f8fad5b-d9cb-469f-a165-70867728950e',
    description:
      'NPCI linking format, each value percent-encoded (RFC 3986); am left out for an open amount, tn without a note',
  })
  upiUri: string;

  static of(record: PaymentRequestRecord): PaymentRequestResponse {
    return {
      referenceId: record.referenceId,
      payeeUpiId: record.payeeUpiId,
      payeeName: record.payeeName,
      amount: record.amount === null ? null : moneyJson(record.amount),
      note: record.note,
      status: record.status,
      createdAt: record.createdAt.toISOString(),
      expiresAt: record.expiresAt.toISOString(),
      paidAt: record.paidAt?.toISOString() ?? null,
      transactionReferenceId: record.transactionReferenceId,
      upiUri: upiPayUri(record),
    };
  }
}
