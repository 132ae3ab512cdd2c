import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type Big from 'big.js';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { JsonNumberText } from '../common/money/json-body';
import { moneyJson } from '../common/money/money';
import { IsMoney, ToMoney } from '../common/money/money.decorators';
import { IsVisibleText } from '../common/text/visible-text';
import { MAX_TRANSFER, MIN_TRANSFER } from '../transactions/transfer.dto';
import { UPI_ID_MESSAGE, UPI_ID_PATTERN } from '../users/upi-id';
import { FREQUENCIES, type Frequency } from './occurrences';
import type { InstructionRow, InstructionStatus, RunRow, RunStatus } from './scheduled-transfers.repository';

export const MAX_OCCURRENCES = 100_000;

export class CreateScheduledTransferRequest {
  @ApiProperty({ example: 'landlord@okbank', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(UPI_ID_PATTERN, { message: UPI_ID_MESSAGE.replace('upiId', 'receiverUpiId') })
  receiverUpiId: string;

  @ApiProperty({
    type: 'number',
    example: 15000.2525,
    minimum: 0.01,
    maximum: 1000000,
    description: 'INR per run, up to 4 decimals (HALF_EVEN), as for a transfer',
  })
  @ToMoney()
  @IsMoney({ min: MIN_TRANSFER, max: MAX_TRANSFER })
  amount: Big;

  @ApiPropertyOptional({ example: 'rent', maxLength: 255 })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(255)
  note?: string;

  @ApiProperty({ enum: FREQUENCIES, example: 'MONTHLY' })
  @IsIn(FREQUENCIES, { message: `frequency must be one of: ${FREQUENCIES.join(', ')}` })
  frequency: Frequency;

  @ApiProperty({
    example: '2026-12-01T09:00:00+05:30',
    description:
      'ISO-8601 date-time, not in the past; without an offset it is a local time in BUSINESS_TIME_ZONE. ' +
      'Repeats keep its local time there; a monthly run on a day the month lacks runs on its last day.',
  })
  @IsString()
  @MaxLength(64)
  startAt: string;

  @ApiPropertyOptional({ example: '2027-11-30T23:59:59+05:30', description: 'No run after this; after startAt' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  endAt?: string;

  @ApiPropertyOptional({ example: 12, minimum: 1, maximum: MAX_OCCURRENCES })
  @IsOptional()
  // Body numbers arrive as their JSON text (json-body.ts); only an integer's text becomes a number.
  @Transform(({ value }: { value: unknown }) =>
    value instanceof JsonNumberText && /^-?\d+$/.test(value.source) ? Number(value.source) : value,
  )
  @IsInt()
  @Min(1)
  @Max(MAX_OCCURRENCES)
  maxOccurrences?: number;
}

export class ScheduledTransferResponse {
  @ApiProperty({ format: 'uuid' }) referenceId: string;
  @ApiProperty({ example: 'alice@okbank' }) senderUpiId: string;
  @ApiProperty({ example: 'landlord@okbank' }) receiverUpiId: string;
  @ApiProperty({ type: 'number', example: 15000.2525 }) amount: RawJson;
  @ApiProperty({ example: 'rent', nullable: true, type: String }) note: string | null;
  @ApiProperty({ enum: FREQUENCIES, example: 'MONTHLY' }) frequency: Frequency;
  @ApiProperty({ format: 'date-time' }) startAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) endAt: string | null;
  @ApiProperty({ example: 12, nullable: true, type: 'integer' }) maxOccurrences: number | null;
  @ApiProperty({ enum: ['ACTIVE', 'PAUSED', 'CANCELLED', 'COMPLETED'] }) status: InstructionStatus;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Null once nothing more runs' })
  nextRunAt: string | null;
  @ApiProperty({ example: 0, description: 'Occurrences that came due and were recorded as runs' })
  occurrences: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;

  static of(row: InstructionRow): ScheduledTransferResponse {
    return {
      referenceId: row.referenceId,
      senderUpiId: row.senderUpiId,
      receiverUpiId: row.receiverUpiId,
      amount: moneyJson(row.amount),
      note: row.note,
      frequency: row.frequency,
      startAt: row.startAt.toISOString(),
      endAt: row.endAt?.toISOString() ?? null,
      maxOccurrences: row.maxOccurrences,
      status: row.status,
      nextRunAt: row.nextRunAt?.toISOString() ?? null,
      occurrences: row.occurrences,
      createdAt: row.createdAt.toISOString(),
    };
  }
}

export class RunProblem {
  @ApiProperty({ example: 'https://errors.payments.local/insufficient-balance' }) type: string;
  @ApiProperty({ example: 'Available balance 10.0000 is less than the required amount 15000.2525' }) detail: string;
}

export class ScheduledTransferRunResponse {
  @ApiProperty({ format: 'date-time' }) dueAt: string;
  @ApiProperty({ format: 'date-time' }) ranAt: string;
  @ApiProperty({ enum: ['COMPLETED', 'FAILED', 'MISSED'] }) status: RunStatus;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) transactionReferenceId: string | null;
  @ApiProperty({
    type: RunProblem,
    nullable: true,
    example: {
      type: 'https://errors.payments.local/insufficient-balance',
      detail: 'Available balance 10.0000 is less than the required amount 15000.2525',
    },
    description:
      'FAILED only: what the transfer answered, as the sender reads it. The receiver reads ' +
      '{"type": "<errors base>/payment-not-completed", "detail": "The payment could not be completed"} instead',
  })
  problem: RunProblem | null;

  static of(row: RunRow): ScheduledTransferRunResponse {
    return {
      dueAt: row.dueAt.toISOString(),
      ranAt: row.ranAt.toISOString(),
      status: row.status,
      transactionReferenceId: row.transactionReferenceId,
      problem: row.problemType ? { type: row.problemType, detail: row.problemDetail ?? '' } : null,
    };
  }
}
