import { Body, Controller, Get, Param, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { ErrorCode } from '../common/errors/error-code';
import { ApiProblems } from '../docs/api-docs';
import { CurrentUser } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { UuidParamPipe } from '../common/http/params';
import { type ListPage, readListRequest } from '../common/paging/page';
import { ApiListPageResponse, ApiListQueries } from '../common/paging/paging.docs';
import { AnswerContextOf, IdempotencyKey } from '../movements/movement-interceptor';
import { MovementRoute } from '../movements/movement-route';
import type { AnswerContext, IdempotentAnswer } from '../idempotency/stored-outcome';
import { TransactionResponse } from './transaction.dto';
import { TRANSACTION_SORT_KEYS, TransactionsService } from './transactions.service';
import { SenderIsCallerGuard, TransferRateLimitGuard } from './transfer.guards';
import { TransferRequest } from './transfer.dto';
import { TransferService } from './transfer.service';

@ApiTags('Transactions')
@ApiBearerAuth()
@Controller('api/v1/transactions')
export class TransactionsController {
  constructor(
    private readonly transfers: TransferService,
    private readonly transactions: TransactionsService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Move money from the caller to another user, exactly once per Idempotency-Key' })
  @ApiBody({ type: TransferRequest })
  @ApiCreatedResponse({
    type: TransactionResponse,
    description: 'Completed; a replay carries Idempotent-Replayed: true',
  })
  @MovementRoute({
    kind: 'transfer',
    problems: [
      ErrorCode.SelfTransfer,
      403,
      ErrorCode.UserNotFound,
      ErrorCode.InsufficientBalance,
      ErrorCode.LimitExceeded,
      ErrorCode.AccountFrozen,
    ],
  })
  // Order of answers: 401 (global guard), 403, 429, then 400 for the key, then 400/422 for the body.
  @UseGuards(SenderIsCallerGuard, TransferRateLimitGuard)
  create(
    @Body() request: TransferRequest,
    @IdempotencyKey() idempotencyKey: string,
    @CurrentUser() caller: AuthenticatedUser,
    @AnswerContextOf() context: AnswerContext,
  ): Promise<IdempotentAnswer> {
    return this.transfers.transfer({ caller, request, idempotencyKey, context });
  }

  @Get('user/:upiId')
  @ApiOperation({ summary: "The caller's transactions, sent and received, newest first, by page or by cursor" })
  @ApiListQueries()
  @ApiQuery({ name: 'sortBy', required: false, enum: TRANSACTION_SORT_KEYS })
  @ApiListPageResponse(TransactionResponse)
  @ApiProblems(400, 401, 403, 422)
  async list(
    @Param('upiId') upiId: string,
    @Query() query: Record<string, unknown>,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ListPage<TransactionResponse>> {
    const request = readListRequest(query, { allowed: TRANSACTION_SORT_KEYS, fallback: 'createdAt', fromQuery: true });
    return this.transactions.listFor(upiId, caller, request);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One transaction, readable by its sender and receiver' })
  @ApiOkResponse({ type: TransactionResponse })
  @ApiProblems(400, 401, 403, ErrorCode.TransactionNotFound)
  async get(
    @Param('id', UuidParamPipe) id: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<TransactionResponse> {
    return this.transactions.get(id, caller);
  }
}
