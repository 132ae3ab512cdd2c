import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
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
import { requireOwner } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ErrorCode } from '../common/errors/error-code';
import { UuidParamPipe } from '../common/http/params';
import { type ListPage, readListRequest, readOneOf } from '../common/paging/page';
import { ApiListPageResponse, ApiListQueries } from '../common/paging/paging.docs';
import { ApiProblems } from '../docs/api-docs';
import type { AnswerContext, IdempotentAnswer } from '../idempotency/stored-outcome';
import { AnswerContextOf, IdempotencyKey } from '../movements/movement-interceptor';
import { MovementRoute } from '../movements/movement-route';
import { TransactionResponse } from '../transactions/transaction.dto';
import { TransferRateLimitGuard } from '../transactions/transfer.guards';
import { UsersService } from '../users/users.service';
import { CaptureHoldRequest, HOLD_ROLES, HOLD_STATUSES, HoldResponse, PlaceHoldRequest } from './hold.dto';
import { HoldsService } from './holds.service';

const HOLD_PARAM = { name: 'referenceId', format: 'uuid', description: "The hold's referenceId" };

@ApiTags('Holds')
@ApiBearerAuth()
@Controller('api/v1')
export class HoldsController {
  constructor(
    private readonly holds: HoldsService,
    private readonly users: UsersService,
  ) {}

  @Post('holds')
  @ApiOperation({
    summary: 'Reserve money for a payee: the amount leaves the caller (the payer) at once, exactly once per key',
    description:
      'Every transfer rule applies (balance, limits: it counts as a transfer of its amount, frozen accounts, the ' +
      'rate limit). The payee captures it in one or more parts or releases it; at expiresAt what is left returns ' +
      'to the payer by itself.',
  })
  @ApiBody({
    type: PlaceHoldRequest,
    examples: {
      hold: { value: { payeeUpiId: 'bob@okbank', amount: 500, expiresInSeconds: 3600, note: 'hotel deposit' } },
    },
  })
  @ApiCreatedResponse({ type: HoldResponse, description: 'HELD; Location names the hold' })
  @MovementRoute({
    kind: 'hold',
    names: 'hold',
    keyExample: 'hotel-deposit-0001',
    problems: [
      ErrorCode.SelfTransfer,
      ErrorCode.UserNotFound,
      ErrorCode.InsufficientBalance,
      ErrorCode.LimitExceeded,
      ErrorCode.AccountFrozen,
      ErrorCode.InvalidUpiId,
    ],
  })
  @UseGuards(TransferRateLimitGuard)
  place(
    @Body() request: PlaceHoldRequest,
    @IdempotencyKey() idempotencyKey: string,
    @CurrentUser() caller: AuthenticatedUser,
    @AnswerContextOf() context: AnswerContext,
  ): Promise<IdempotentAnswer> {
    return this.holds.place({ caller, request, idempotencyKey, context });
  }

  @Get('holds/:referenceId')
  @ApiOperation({ summary: 'One hold, for its payer or its payee' })
  @ApiParam(HOLD_PARAM)
  @ApiOkResponse({ type: HoldResponse })
  @ApiProblems(400, 401, 403, ErrorCode.HoldNotFound)
  get(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<HoldResponse> {
    return this.holds.get(caller, referenceId);
  }

  @Post('holds/:referenceId/captures')
  @ApiOperation({
    summary: 'Take money from a hold (the payee only): a TRANSFER from the payer, exactly once per key',
    description:
      'Several captures may follow one another, never more than the amount in all (422 hold-exceeded); concurrent ' +
      'captures are serialised on the hold. Fully captured, the hold is CAPTURED.',
  })
  @ApiParam(HOLD_PARAM)
  @ApiBody({
    type: CaptureHoldRequest,
    examples: { part: { value: { amount: 120, note: 'room' } }, rest: { summary: 'All that remains', value: {} } },
  })
  @ApiCreatedResponse({ type: TransactionResponse, description: 'A TRANSFER with holdReferenceId' })
  @MovementRoute({
    kind: 'capture',
    names: 'capture',
    keyExample: 'hotel-checkout-0001',
    problems: [403, ErrorCode.HoldNotFound, ErrorCode.HoldNotOpen, ErrorCode.HoldExceeded, ErrorCode.AccountFrozen],
  })
  @UseGuards(TransferRateLimitGuard)
  capture(
    @Param('referenceId', UuidParamPipe) holdReferenceId: string,
    @Body() request: CaptureHoldRequest,
    @IdempotencyKey() idempotencyKey: string,
    @CurrentUser() caller: AuthenticatedUser,
    @AnswerContextOf() context: AnswerContext,
  ): Promise<IdempotentAnswer> {
    return this.holds.capture({ caller, holdReferenceId, request, idempotencyKey, context });
  }

  @Post('holds/:referenceId/release')
  @HttpCode(200)
  @ApiOperation({ summary: 'Give back what is left of a hold to its payer (the payee only): RELEASED' })
  @ApiParam(HOLD_PARAM)
  @ApiOkResponse({ type: HoldResponse })
  @ApiProblems(400, 401, 403, ErrorCode.HoldNotFound, ErrorCode.HoldNotOpen, 503)
  release(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<HoldResponse> {
    return this.holds.release(caller, referenceId);
  }

  @Get('users/:referenceId/holds')
  @ApiOperation({ summary: "The caller's holds as payer (default) or payee, newest first, by page or by cursor" })
  @ApiListQueries()
  @ApiQuery({ name: 'role', required: false, enum: HOLD_ROLES })
  @ApiQuery({ name: 'status', required: false, enum: HOLD_STATUSES })
  @ApiListPageResponse(HoldResponse)
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 422)
  async list(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Query() query: Record<string, unknown>,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ListPage<HoldResponse>> {
    const role = readOneOf(query, 'role', HOLD_ROLES) ?? 'payer';
    const status = readOneOf(query, 'status', HOLD_STATUSES);
    const request = readListRequest(query, { allowed: ['createdAt'], fallback: 'createdAt', fromQuery: false });
    requireOwner(caller, await this.users.findByReferenceId(referenceId), `No user with reference ID ${referenceId}`);
    return this.holds.listOf(referenceId, role, status, request);
  }
}
