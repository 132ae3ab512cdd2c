import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type Big from 'big.js';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsMoney, ToMoney } from '../common/money/money.decorators';
import { UPI_ID_MESSAGE, UPI_ID_PATTERN } from '../users/upi-id';
import { IsVisibleText } from '../common/text/visible-text';

export const MIN_DEPOSIT = '0.01';
/** Ten lakh crore: far above any one funding, far below what numeric(19,4) holds. */
export const MAX_DEPOSIT = '10000000000000';

export class DepositRequest {
  @ApiProperty({ example: 'alice@okbank', maxLength: 100, description: 'The user to credit' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(UPI_ID_PATTERN, { message: UPI_ID_MESSAGE })
  upiId: string;

  @ApiProperty({
    type: 'number',
    example: 5000.2525,
    minimum: 0.01,
    maximum: 10000000000000,
    description: 'INR, up to 4 decimals (HALF_EVEN)',
  })
  @ToMoney()
  @IsMoney({ min: MIN_DEPOSIT, max: MAX_DEPOSIT })
  amount: Big;

  @ApiPropertyOptional({ example: 'bank transfer 2026-11-22', maxLength: 255 })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(255)
  note?: string;
}
