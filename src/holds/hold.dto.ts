import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type Big from 'big.js';
import { Transform } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import { JsonNumberText } from '../common/money/json-body';
import { moneyJson } from '../common/money/money';
import { IsMoney, ToMoney } from '../common/money/money.decorators';
import { IsVisibleText } from '../common/text/visible-text';
import { MAX_TRANSFER, MIN_TRANSFER } from '../transactions/transfer.dto';
import { UPI_ID_MESSAGE, UPI_ID_PATTERN } from '../users/upi-id';

export const HOLD_STATUSES = ['HELD', 'CAPTURED', 'RELEASED', 'EXPIRED'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];
export const HOLD_ROLES = ['payer', 'payee'] as const;
export type HoldRole = (typeof HOLD_ROLES)[number];
export const DEFAULT_HOLD_SECONDS = 86_400;
export const MIN_HOLD_SECONDS = 60;

/** A JSON number arrives as its source text (json-body.ts); a whole number of seconds is read as a number. */
function ToInteger(): PropertyDecorator {
  return Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const raw = obj[key];
    return raw instanceof JsonNumberText ? Number(raw.source) : raw;
  });
}

/** Body of POST /api/v1/holds; the caller is the payer. HOLD_MAX_SECONDS bounds expiresInSeconds (the service checks it). */
export class PlaceHoldRequest {
  @ApiProperty({ example: 'bob@okbank', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(UPI_ID_PATTERN, { message: UPI_ID_MESSAGE.replace('upiId', 'payeeUpiId') })
  payeeUpiId: string;

  @ApiProperty({
    type: 'number',
    example: 500,
    minimum: 0.01,
    maximum: 1000000,
    description: 'INR, up to 4 decimals (HALF_EVEN); leaves the payer balance at once',
  })
  @ToMoney()
  @IsMoney({ min: MIN_TRANSFER, max: MAX_TRANSFER })
  amount: Big;

  @ApiPropertyOptional({
    type: 'integer',
    example: 3600,
    minimum: MIN_HOLD_SECONDS,
    description: `Seconds until the rest returns to the payer by itself; ${DEFAULT_HOLD_SECONDS} when left out, at most HOLD_MAX_SECONDS`,
  })
  @IsOptional()
  @ToInteger()
  @IsInt()
  @Min(MIN_HOLD_SECONDS)
  expiresInSeconds?: number;

  @ApiPropertyOptional({ example: 'hotel deposit', maxLength: 255 })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(255)
  note?: string;
}

/** Body of POST /api/v1/holds/{referenceId}/captures; an empty object captures all that remains. */
export class CaptureHoldRequest {
  @ApiPropertyOptional({
    type: 'number',
    example: 120,
    minimum: 0.01,
    maximum: 1000000,
    description: 'INR, up to 4 decimals (HALF_EVEN); defaults to what remains on the hold',
  })
  @IsOptional()
  @ToMoney()
  @IsMoney({ min: MIN_TRANSFER, max: MAX_TRANSFER })
  amount?: Big;

  @ApiPropertyOptional({ example: 'room and minibar', maxLength: 255, description: "Defaults to the hold's note" })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(255)
  note?: string;
}

/** A hold as hold_json.sql writes it: amounts and times as exact text. */
export interface HoldFields {
  referenceId: string;
  payerUpiId: string;
  payeeUpiId: string;
  amount: string;
  capturedAmount: string;
  remainingAmount: string;
  status: HoldStatus;
  note: string | null;
  createdAt: string;
  expiresAt: string;
  closedAt: string | null;
  captures: { transactionReferenceId: string; amount: string; at: string }[];
}

export class HoldCaptureResponse {
  @ApiProperty({ format: 'uuid', description: 'The TRANSFER this capture made' }) transactionReferenceId: string;
  @ApiProperty({ type: 'number', example: 120 }) amount: RawJson;
  @ApiProperty({ format: 'date-time' }) at: string;
}

/** One Hold body for the 201, its replay, reads and releases: same fields, same order. */
export class HoldResponse {
  @ApiProperty({ format: 'uuid' }) referenceId: string;
  @ApiProperty({ example: 'alice@okbank' }) payerUpiId: string;
  @ApiProperty({ example: 'bob@okbank' }) payeeUpiId: string;
  @ApiProperty({ type: 'number', example: 500 }) amount: RawJson;
  @ApiProperty({ type: 'number', example: 120 }) capturedAmount: RawJson;
  @ApiProperty({ type: 'number', example: 380 }) remainingAmount: RawJson;
  @ApiProperty({ enum: HOLD_STATUSES, example: 'HELD' }) status: HoldStatus;
  @ApiProperty({ type: 'string', example: 'hotel deposit', nullable: true }) note: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When it left HELD' })
  closedAt: string | null;
  @ApiProperty({ type: [HoldCaptureResponse], description: 'Oldest first' }) captures: HoldCaptureResponse[];

  static from(this: void, fields: HoldFields): HoldResponse {
    return {
      referenceId: fields.referenceId,
      payerUpiId: fields.payerUpiId,
      payeeUpiId: fields.payeeUpiId,
      amount: moneyJson(fields.amount),
      capturedAmount: moneyJson(fields.capturedAmount),
      remainingAmount: moneyJson(fields.remainingAmount),
      status: fields.status,
      note: fields.note,
      createdAt: fields.createdAt,
      expiresAt: fields.expiresAt,
      closedAt: fields.closedAt,
      captures: fields.captures.map((capture) => ({
        transactionReferenceId: capture.transactionReferenceId,
        amount: moneyJson(capture.amount),
        at: capture.at,
      })),
    };
  }
}
