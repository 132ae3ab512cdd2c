import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PIN_MESSAGE, PIN_PATTERN } from '../access/pin-hash';
import { UPI_ID_MESSAGE, UPI_ID_PATTERN } from '../users/upi-id';

export class LoginRequest {
  @ApiProperty({ example: 'alice@okbank' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(UPI_ID_PATTERN, { message: UPI_ID_MESSAGE })
  upiId: string;

  @ApiProperty({
    example: '482916',
    required: false,
    pattern: PIN_PATTERN.source,
    description: "The user's PIN: required for users who set one, and for everyone when AUTH_PIN_REQUIRED=true",
  })
  // null is not "no PIN": only an absent field is (IsOptional would let null through).
  @ValidateIf((_object, value) => value !== undefined)
  @IsString({ message: PIN_MESSAGE })
  @Matches(PIN_PATTERN, { message: PIN_MESSAGE })
  pin?: string;
}

export class LoginResponse {
  @ApiProperty({
    description: 'A JWT: send it as Authorization: Bearer <accessToken>',
    example: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZUBva2JhbmsifQ.c2lnbmF0dXJl',
  })
  accessToken: string;
  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' }) tokenType: 'Bearer';
  @ApiProperty({ example: 3600 }) expiresIn: number;
  @ApiProperty({ example: 'alice@okbank' }) upiId: string;
  @ApiProperty({ format: 'uuid' }) referenceId: string;
}
