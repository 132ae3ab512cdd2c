import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { ApiProblems } from '../docs/api-docs';
import { UPI_ID_MESSAGE, UPI_ID_PATTERN } from '../users/upi-id';
import { PayeeResponse } from './payee.dto';
import { PayeeLookupRateLimiter } from './payee-lookup-rate-limiter';
import { PayeesService } from './payees.service';

@ApiTags('Payees')
@Controller('api/v1/payees')
export class PayeesController {
  constructor(
    private readonly payees: PayeesService,
    private readonly lookups: PayeeLookupRateLimiter,
  ) {}

  @Get(':upiId')
  @ApiBearerAuth()
  @ApiOperation({
    summary: "The payee's name before paying: from the UPI verification provider, else as registered",
  })
  @ApiParam({ name: 'upiId', example: 'bob@okbank', description: 'The UPI ID about to be paid' })
  @ApiOkResponse({ type: PayeeResponse, description: 'The name to show the payer before they confirm' })
  @ApiProblems(401, ErrorCode.UserNotFound, 422, ErrorCode.RateLimitExceeded)
  async lookUp(@Param('upiId') upiId: string, @CurrentUser() caller: AuthenticatedUser): Promise<PayeeResponse> {
    await this.lookups.consume(caller.referenceId);
    if (!UPI_ID_PATTERN.test(upiId) || upiId.length > 100) throw new ValidationError({ upiId: UPI_ID_MESSAGE });
    return this.payees.lookUp(upiId);
  }
}
