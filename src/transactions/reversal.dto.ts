import { ApiPropertyOptional } from '@nestjs/swagger';
import type Big from 'big.js';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsMoney, ToMoney } from '../common/money/money.decorators';
import { MAX_TRANSFER, MIN_TRANSFER } from './transfer.dto';
import { IsVisibleText } from '../common/text/visible-text';

/** Body of POST /api/v1/transactions/{referenceId}/reversals; an empty object reverses all that remains. */
export class ReversalRequest {
  @ApiPropertyOptional({
    type: 'number',
    example: 40.2525,
    minimum: 0.01,
    maximum: 1000000,
    description: 'INR, up to 4 decimals (HALF_EVEN); defaults to what remains reversible',
  })
  @IsOptional()
  @ToMoney()
  @IsMoney({ min: MIN_TRANSFER, max: MAX_TRANSFER })
  amount?: Big;

  @ApiPropertyOptional({ example: 'refund: item returned', maxLength: 255 })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(255)
  note?: string;
}
