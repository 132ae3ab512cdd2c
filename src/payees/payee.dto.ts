import { ApiProperty } from '@nestjs/swagger';

export class PayeeResponse {
  @ApiProperty({ example: 'bob@okbank', description: 'The UPI ID as registered' })
  upiId: string;
  @ApiProperty({
    example: 'Bob Kumar',
    description: "The account holder's name from the UPI verification provider, else the registered name",
  })
  name: string;
}
