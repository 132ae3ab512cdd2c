import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type Big from 'big.js';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { formatMoney, moneyJson } from '../common/money/money';
import { JsonNumberText } from '../common/money/json-body';
import { numericColumnJson } from '../common/money/numeric-text';
import { IsVisibleText } from '../common/text/visible-text';
import type { AppConfig } from '../config/app-config';
import { IsMoney, ToMoney } from '../common/money/money.decorators';

/** One row of LimitsRepository.findView's query. */
export interface LimitsRow {
  upi_id: string;
  reference_id: string;
  frozen: boolean;
  new_until: string;
  is_new: boolean;
  amount_override: string | null;
  count_override: number | null;
  amount_used: string;
  count_used: number;
  resets_at: string;
  new_used: string;
}

const money = (text: string | undefined | null) => (text == null ? null : moneyJson(text));

export class DailyLimitsView {
  @ApiProperty({ type: 'number', nullable: true, example: 100000 }) amountMax: RawJson | null;
  @ApiProperty({ type: 'number', example: 65000.2525 }) amountUsed: RawJson;
  @ApiProperty({ type: 'integer', nullable: true, example: 20 }) countMax: number | null;
  @ApiProperty({ type: 'integer', example: 3 }) countUsed: number;
  @ApiProperty({ format: 'date-time', example: '2026-11-24T18:30:00.000Z' }) resetsAt: string;
}

export class NewUserLimitsView {
  @ApiProperty({ format: 'date-time', example: '2026-11-25T09:00:00.000Z' }) until: string;
  @ApiProperty({ type: 'number', example: 5000 }) amountMax: RawJson;
  @ApiProperty({ type: 'number', example: 1200.2525 }) amountUsed: RawJson;
}

/** GET /api/v1/users/{referenceId}/limits: what the sender may still move, and until when. */
export class LimitsView {
  @ApiProperty({ type: 'number', example: 100000 }) perTransferMax: RawJson;
  @ApiProperty({ type: DailyLimitsView }) daily: DailyLimitsView;
  @ApiProperty({
    type: NewUserLimitsView,
    nullable: true,
    description: 'The cooling period after registration; null once it is over or when the profile has none',
    example: { until: '2026-11-25T09:00:00.000Z', amountMax: 5000, amountUsed: 1200 },
  })
  newUser: NewUserLimitsView | null;
  @ApiProperty({ example: false }) frozen: boolean;

  static of(row: LimitsRow, config: AppConfig): LimitsView {
    const applies = config.newUserAmountMax !== undefined && config.newUserPeriodHours > 0 && row.is_new;
    return {
      perTransferMax: moneyJson(config.transferAmountMax),
      daily: {
        amountMax: money(row.amount_override ?? config.transferDailyAmountMax),
        amountUsed: numericColumnJson(row.amount_used),
        countMax: row.count_override ?? config.transferDailyCountMax ?? null,
        countUsed: Number(row.count_used),
        resetsAt: row.resets_at,
      },
      newUser: applies
        ? {
            until: row.new_until,
            amountMax: moneyJson(config.newUserAmountMax!),
            amountUsed: numericColumnJson(row.new_used),
          }
        : null,
      frozen: row.frozen,
    };
  }
}

/** PUT /api/v1/admin/users/{referenceId}/limits: a field left out is kept; null goes back to the profile. */
export class LimitOverridesRequest {
  @ApiPropertyOptional({ type: 'number', nullable: true, example: 50000, description: 'null: back to the profile' })
  @IsOptional()
  @ToMoney()
  @IsMoney({ min: '0', max: '10000000000000' })
  dailyAmountMax?: Big | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, example: 10, description: 'null: back to the profile' })
  @IsOptional()
  // Body numbers arrive as their source text (json-body.ts); a count is a plain integer.
  @Transform(({ value }: { value: unknown }) =>
    value instanceof JsonNumberText && /^-?\d{1,9}$/.test(value.source) ? Number(value.source) : value,
  )
  @IsInt({ message: 'dailyCountMax must be an integer' })
  @Min(0)
  @Max(1_000_000)
  dailyCountMax?: number | null;

  /** The overrides as LimitsService takes them: money as exact text. */
  toOverrides(): { dailyAmountMax?: string | null; dailyCountMax?: number | null } {
    return {
      dailyAmountMax:
        this.dailyAmountMax === undefined || this.dailyAmountMax === null
          ? this.dailyAmountMax
          : formatMoney(this.dailyAmountMax),
      dailyCountMax: this.dailyCountMax,
    };
  }
}

export class FreezeRequest {
  @ApiProperty({ example: 'Court order 2026/117', minLength: 1, maxLength: 255 })
  @IsString()
  @Length(1, 255)
  @IsVisibleText()
  reason: string;
}

export class AdminActionResponse {
  @ApiProperty({ enum: ['FREEZE', 'UNFREEZE', 'LIMITS', 'GRANT_ROLE', 'REVOKE_ROLE'], example: 'FREEZE' })
  action: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'Court order 2026/117' }) reason: string | null;
  @ApiProperty({ example: 'admin@okbank' }) adminUpiId: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-24T09:00:00.000Z' }) at: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} }) details: Record<string, unknown>;
}
