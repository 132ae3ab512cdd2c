import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { UPI_ID_MESSAGE, UPI_ID_PATTERN } from '../users/upi-id';

export class LoginRequest {
  @ApiProperty({ example: 'alice@okbank' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @Matches(UPI_ID_PATTERN, { message: UPI_ID_MESSAGE })
  upiId: string;
}

export class LoginResponse {
  @ApiProperty() accessToken: string;
  @ApiProperty({ example: 'Bearer' }) tokenType: 'Bearer';
  @ApiProperty({ example: 3600 }) expiresIn: number;
  @ApiProperty({ example: 'alice@okbank' }) upiId: string;
  @ApiProperty({ format: 'uuid' }) referenceId: string;
}
