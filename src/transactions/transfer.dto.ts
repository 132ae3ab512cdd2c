import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type Big from 'big.js';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsMoney, ToMoney } from '../common/money/money.decorators';
import { UPI_ID_MESSAGE, UPI_ID_PATTERN } from '../users/upi-id';
import { IsVisibleText } from '../common/text/visible-text';

export const MIN_TRANSFER = '0.01';
export const MAX_TRANSFER = '1000000.00';

export class TransferRequest {
  @ApiProperty({ example: 'alice@okbank', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(UPI_ID_PATTERN, { message: UPI_ID_MESSAGE.replace('upiId', 'senderUpiId') })
  senderUpiId: string;

  @ApiProperty({ example: 'bob@okbank', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(UPI_ID_PATTERN, { message: UPI_ID_MESSAGE.replace('upiId', 'receiverUpiId') })
  receiverUpiId: string;

  @ApiProperty({
    type: 'number',
    example: 100.5025,
    minimum: 0.01,
    maximum: 1000000,
    description: 'INR, up to 4 decimals (HALF_EVEN)',
  })
  @ToMoney()
  @IsMoney({ min: MIN_TRANSFER, max: MAX_TRANSFER })
  amount: Big;

  @ApiPropertyOptional({ example: 'dinner', maxLength: 255 })
  @IsOptional()
  @IsString()
  @IsVisibleText({ allowEmpty: true })
  @MaxLength(255)
  note?: string;
}
