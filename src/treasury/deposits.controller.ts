import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser, Roles } from '../access/access.decorators';
import { type AuthenticatedUser, ROLE_ADMIN } from '../access/authenticated-user';
import { ErrorCode } from '../common/errors/error-code';
import { AnswerContextOf, IdempotencyKey } from '../movements/movement-interceptor';
import { MovementRoute } from '../movements/movement-route';
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
  @ApiBody({ type: DepositRequest })
  @ApiCreatedResponse({
    type: TransactionResponse,
    description: 'A DEPOSIT transaction from the treasury; a replay carries Idempotent-Replayed: true',
  })
  @MovementRoute({
    kind: 'deposit',
    keyExample: 'deposit-2026-11-22-0001',
    problems: [403, ErrorCode.UserNotFound, ErrorCode.AccountFrozen],
  })
  // Per admin, with the transfers' limit: a stolen admin token cannot mint money at machine speed.
  @UseGuards(TransferRateLimitGuard)
  create(
    @Body() request: DepositRequest,
    @IdempotencyKey() idempotencyKey: string,
    @CurrentUser() caller: AuthenticatedUser,
    @AnswerContextOf() context: AnswerContext,
  ): Promise<IdempotentAnswer> {
    return this.deposits.deposit({ caller, request, idempotencyKey, context });
  }
}
