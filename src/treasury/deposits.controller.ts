import { Body, Controller, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser, Roles } from '../access/access.decorators';
import { type AuthenticatedUser, ROLE_ADMIN } from '../access/authenticated-user';
import { ErrorCode } from '../common/errors/error-code';
import { ApiProblems } from '../docs/api-docs';
import { IDEMPOTENCY_KEY_HEADER } from '../idempotency/idempotency-key';
import { AnswerContextOf, IdempotencyInterceptor, IdempotencyKey } from '../idempotency/idempotency.interceptor';
import type { AnswerContext, IdempotentAnswer } from '../idempotency/stored-outcome';
import { TransactionResponse } from '../transactions/transaction.dto';
import { TransferRateLimitGuard } from '../transactions/transfer.guards';
import { DepositRequest } from './deposit.dto';
import { DepositService } from './deposit.service';

@ApiTags('Admin')
@ApiBearerAuth()
@Controller('api/v1/admin/deposits')
export class DepositsController {
  constructor(private readonly deposits: DepositService) {}

  @Post()
  @Roles(ROLE_ADMIN)
  @ApiOperation({
    summary: 'Fund a user from the treasury (admin), exactly once per Idempotency-Key',
    description:
      'Money enters the system only from the treasury: the user gets a CREDIT, the treasury a DEBIT, under a ' +
      'DEPOSIT transaction. The sum of all balances, treasury included, stays 0.',
  })
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: true,
    description: 'Names this deposit: a retry with the same key and body replays the stored result',
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[A-Za-z0-9_.:-]+$',
      example: 'deposit-2026-11-22-0001',
    },
  })
  @ApiBody({ type: DepositRequest })
  @ApiCreatedResponse({
    type: TransactionResponse,
    description: 'A DEPOSIT transaction from the treasury; a replay carries Idempotent-Replayed: true',
  })
  @ApiProblems(
    ErrorCode.InvalidRequest,
    ErrorCode.IdempotencyKeyMissing,
    ErrorCode.IdempotencyKeyInvalid,
    ErrorCode.IdempotencyKeyReused,
    401,
    403,
    ErrorCode.UserNotFound,
    ErrorCode.IdempotencyKeyInFlight,
    415,
    ErrorCode.ValidationFailed,
    ErrorCode.AccountFrozen,
    ErrorCode.RateLimitExceeded,
    503,
  )
  // Per admin, with the transfers' limit: a stolen admin token cannot mint money at machine speed.
  @UseGuards(TransferRateLimitGuard)
  @UseInterceptors(IdempotencyInterceptor)
  create(
    @Body() request: DepositRequest,
    @IdempotencyKey() idempotencyKey: string,
    @CurrentUser() caller: AuthenticatedUser,
    @AnswerContextOf() context: AnswerContext,
  ): Promise<IdempotentAnswer> {
    return this.deposits.deposit({ caller, request, idempotencyKey, context });
  }
}
