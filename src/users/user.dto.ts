import { ApiProperty } from '@nestjs/swagger';
import type Big from 'big.js';
import { IsNotEmpty, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PIN_MESSAGE, PIN_PATTERN } from '../access/pin-hash';
import { IsMoney, ToMoney } from '../common/money/money.decorators';
import { IsVisibleText } from '../common/text/visible-text';
import { moneyJson } from '../common/money/money';
import { UPI_ID_MESSAGE, UPI_ID_PATTERN } from './upi-id';
import type { UserRow } from './users.repository';

export class RegisterUserRequest {
  @ApiProperty({ example: 'Alice Sharma', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @Matches(/\S/, { message: 'name must not be blank' })
  @IsVisibleText()
  @MaxLength(100)
  name: string;

  @ApiProperty({ example: 'alice@okbank', maxLength: 100, pattern: UPI_ID_PATTERN.source })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(UPI_ID_PATTERN, { message: UPI_ID_MESSAGE })
  upiId: string;

  @ApiProperty({ example: '9876543210', pattern: '^\\d{10}$' })
  @IsString()
  @Matches(/^\d{10}$/, { message: 'phoneNumber must be exactly 10 digits' })
  phoneNumber: string;

  @ApiProperty({ example: 1500.5025, type: 'number', minimum: 0, description: 'INR, up to 4 decimals (HALF_EVEN)' })
  @ToMoney()
  @IsMoney({ min: '0' })
  balance: Big;

  @ApiProperty({
    example: '482916',
    required: false,
    pattern: PIN_PATTERN.source,
    description:
      'Login PIN (4 or 6 digits), stored only as a salted scrypt hash. Required when AUTH_PIN_REQUIRED=true.',
  })
  // null is not "no PIN": only an absent field is (IsOptional would let null through).
  @ValidateIf((_object, value) => value !== undefined)
  @IsString({ message: PIN_MESSAGE })
  @Matches(PIN_PATTERN, { message: PIN_MESSAGE })
  pin?: string;
}

export class UserResponse {
  @ApiProperty({ format: 'uuid' }) referenceId: string;
  @ApiProperty({ example: 'Alice Sharma' }) name: string;
  @ApiProperty({ example: 'alice@okbank' }) upiId: string;
  @ApiProperty({ example: '9876543210' }) phoneNumber: string;
  @ApiProperty({ type: 'number', example: 1500.5025 }) balance: RawJson;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;

  static of(this: void, user: UserRow): UserResponse {
    return {
      referenceId: user.referenceId,
      name: user.name,
      upiId: user.upiId,
      phoneNumber: user.phoneNumber,
      balance: moneyJson(user.balance),
      createdAt: user.createdAt.toISOString(),
      updatedAt: user.updatedAt.toISOString(),
    };
  }
}

/** The lookup-by-UPI-ID shape: internal key and version instead of referenceId. */
export class UserAccountResponse {
  @ApiProperty({ type: 'integer', example: 42 }) userId: RawJson;
  @ApiProperty({ example: 'Alice Sharma' }) name: string;
  @ApiProperty({ example: 'alice@okbank' }) upiId: string;
  @ApiProperty({ example: '9876543210' }) phoneNumber: string;
  @ApiProperty({ type: 'number', example: 1500.5025 }) balance: RawJson;
  @ApiProperty({ type: 'integer', example: 3 }) version: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;

  static of(this: void, user: UserRow): UserAccountResponse {
    return {
      userId: JSON.rawJSON(user.id),
      name: user.name,
      upiId: user.upiId,
      phoneNumber: user.phoneNumber,
      balance: moneyJson(user.balance),
      version: user.version,
      createdAt: user.createdAt.toISOString(),
      updatedAt: user.updatedAt.toISOString(),
    };
  }
}
