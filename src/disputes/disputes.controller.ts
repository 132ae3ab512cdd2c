import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentUser } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ErrorCode } from '../common/errors/error-code';
import { UuidParamPipe } from '../common/http/params';
import { type ListPage, readListRequest, readOneOf } from '../common/paging/page';
import { ApiListPageResponse, ApiListQueries } from '../common/paging/paging.docs';
import { ApiProblems } from '../docs/api-docs';
import type { AnswerContext, IdempotentAnswer } from '../idempotency/stored-outcome';
import { AnswerContextOf, IdempotencyKey } from '../movements/movement-interceptor';
import { MovementRoute } from '../movements/movement-route';
import { DISPUTE_STATUSES, DisputeResponse, OpenDisputeRequest, RejectDisputeRequest } from './dispute.dto';
import { readDisputeFilter } from './dispute-query';
import { DisputesService } from './disputes.service';

const DISPUTE_PARAM = { name: 'referenceId', format: 'uuid', description: "The dispute's referenceId" } as const;
const ANSWER_PROBLEMS = [400, 401, ErrorCode.Forbidden, ErrorCode.DisputeNotFound, ErrorCode.DisputeStatusConflict];

@ApiTags('Disputes')
@ApiBearerAuth()
@Controller('api/v1')
export class DisputesController {
  constructor(private readonly disputes: DisputesService) {}

  @Post('transactions/:referenceId/disputes')
  @ApiOperation({
    summary: 'Raise a dispute on a transfer (its payer only), exactly once per Idempotency-Key',
    description:
      'Within DISPUTE_WINDOW_DAYS of the transfer, for at most what is not yet reversed. The payee answers by ' +
      'respondBy, or the dispute escalates to an admin. NPCI caps: 10 disputes per payer in a rolling 30 days, ' +
      '5 per payer and payee.',
  })
  @ApiParam({ name: 'referenceId', format: 'uuid', description: "The transfer's referenceId" })
  @ApiBody({
    type: OpenDisputeRequest,
    examples: {
      whole: { summary: 'All that is not yet reversed', value: { reason: 'WRONG_RECIPIENT' } },
      part: {
        summary: 'Part of the amount',
        value: { reason: 'WRONG_AMOUNT', amount: 40.25, description: 'Charged twice for one order' },
      },
    },
  })
  @ApiCreatedResponse({ type: DisputeResponse, description: 'OPEN; Location names the dispute' })
  @MovementRoute({
    kind: 'dispute',
    keyExample: 'dispute-2026-11-22-0001',
    problems: [
      403,
      ErrorCode.TransactionNotFound,
      ErrorCode.DisputeAlreadyOpen,
      ErrorCode.DisputeWindowClosed,
      ErrorCode.NotReversible,
      ErrorCode.DisputeLimitExceeded,
    ],
  })
  open(
    @Param('referenceId', UuidParamPipe) transactionReferenceId: string,
    @Body() request: OpenDisputeRequest,
    @IdempotencyKey() idempotencyKey: string,
    @CurrentUser() caller: AuthenticatedUser,
    @AnswerContextOf() context: AnswerContext,
  ): Promise<IdempotentAnswer> {
    return this.disputes.open({ caller, transactionReferenceId, request, idempotencyKey, context });
  }

  @Get('disputes/:referenceId')
  @ApiOperation({ summary: 'One dispute, with its history: the payer, the payee or an admin' })
  @ApiParam(DISPUTE_PARAM)
  @ApiOkResponse({ type: DisputeResponse })
  @ApiProblems(400, 401, 403, ErrorCode.DisputeNotFound)
  get(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<DisputeResponse> {
    return this.disputes.get(caller, referenceId);
  }

  @Post('disputes/:referenceId/accept')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Accept a dispute (the payee, before respondBy): the refund goes back to the payer, once',
    description:
      "A REVERSAL of the transfer for the dispute's amount, capped at what is not yet reversed; the dispute is " +
      'RESOLVED/REFUNDED with refundTransactionReferenceId. Accepting again answers the same dispute.',
  })
  @ApiParam(DISPUTE_PARAM)
  @ApiOkResponse({ type: DisputeResponse, description: 'RESOLVED, resolution REFUNDED' })
  @ApiProblems(
    ...ANSWER_PROBLEMS,
    ErrorCode.NotReversible,
    ErrorCode.InsufficientBalance,
    ErrorCode.AccountFrozen,
    ErrorCode.Conflict,
  )
  accept(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<DisputeResponse> {
    return this.disputes.act(caller, referenceId, 'ACCEPT');
  }

  @Post('disputes/:referenceId/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a dispute (the payee, before respondBy): it escalates to an admin' })
  @ApiParam(DISPUTE_PARAM)
  @ApiBody({ type: RejectDisputeRequest })
  @ApiOkResponse({ type: DisputeResponse, description: 'ESCALATED; resolveBy is the admin turnaround' })
  @ApiProblems(...ANSWER_PROBLEMS, 415, 422)
  reject(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Body() body: RejectDisputeRequest,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<DisputeResponse> {
    return this.disputes.act(caller, referenceId, 'REJECT', { note: body.note });
  }

  @Post('disputes/:referenceId/withdraw')
  @HttpCode(200)
  @ApiOperation({ summary: 'Withdraw a dispute (the payer) while it is not RESOLVED' })
  @ApiParam(DISPUTE_PARAM)
  @ApiOkResponse({ type: DisputeResponse, description: 'RESOLVED, resolution WITHDRAWN' })
  @ApiProblems(...ANSWER_PROBLEMS)
  withdraw(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<DisputeResponse> {
    return this.disputes.act(caller, referenceId, 'WITHDRAW');
  }

  @Get('users/:referenceId/disputes')
  @ApiOperation({ summary: "The caller's disputes, raised (as payer) or received (as payee), newest first" })
  @ApiListQueries()
  @ApiQuery({ name: 'role', required: false, enum: ['raised', 'received'], description: 'Default raised' })
  @ApiQuery({ name: 'status', required: false, enum: DISPUTE_STATUSES })
  @ApiListPageResponse(DisputeResponse)
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 422)
  list(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Query() query: Record<string, unknown>,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ListPage<DisputeResponse>> {
    const role = readOneOf(query, 'role', ['raised', 'received'] as const) ?? 'raised';
    const filter = readDisputeFilter(query, false);
    const request = readListRequest(query, { allowed: ['createdAt'], fallback: 'createdAt', fromQuery: false });
    return this.disputes.listOf(caller, referenceId, role, filter, request);
  }
}
