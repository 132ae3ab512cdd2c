import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentUser } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ErrorCode } from '../common/errors/error-code';
import { UuidParamPipe } from '../common/http/params';
import { ApiProblems } from '../docs/api-docs';
import {
  CreateScheduledTransferRequest,
  ScheduledTransferResponse,
  ScheduledTransferRunResponse,
} from './scheduled-transfer.dto';
import { ScheduledTransfersService } from './scheduled-transfers.service';

const REFERENCE = { name: 'referenceId', format: 'uuid', example: '6d0f3c2a-8b1e-4f5a-9c7d-2e4b6a8c0d1f' };

@ApiTags('Scheduled transfers')
@ApiBearerAuth()
@Controller('api/v1/scheduled-transfers')
export class ScheduledTransfersController {
  constructor(private readonly schedules: ScheduledTransfersService) {}

  @Post()
  @ApiOperation({
    summary: 'Schedule a transfer from the caller: once, daily, weekly or monthly',
    description:
      'Each occurrence runs once, as an ordinary transfer with every transfer rule but the per-second rate limit ' +
      "(that one guards the API's own calls), under an Idempotency-Key of the service's own namespace that no client " +
      'key can take. Repeats keep the local time of startAt in BUSINESS_TIME_ZONE; a monthly run on a day the month ' +
      'lacks runs on its last day. A sender may have at most SCHEDULED_TRANSFERS_MAX_PER_USER (default 100) active ' +
      'or paused instructions; one more is refused with 422 limit-exceeded, its `limit` member ' +
      '`{"name": "scheduled-transfers", "max", "used", "remaining": 0, "resetsAt": null}` (a slot frees when an ' +
      'instruction is cancelled or completes), and nothing is written.',
  })
  @ApiBody({ type: CreateScheduledTransferRequest })
  @ApiCreatedResponse({ type: ScheduledTransferResponse })
  @ApiProblems(
    ErrorCode.InvalidRequest,
    ErrorCode.SelfTransfer,
    401,
    ErrorCode.UserNotFound,
    415,
    422,
    ErrorCode.LimitExceeded,
    503,
  )
  async create(
    @Body() request: CreateScheduledTransferRequest,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ScheduledTransferResponse> {
    return ScheduledTransferResponse.of(await this.schedules.create(caller, request));
  }

  @Get(':referenceId')
  @ApiOperation({ summary: 'One scheduled transfer (its sender or receiver)' })
  @ApiParam(REFERENCE)
  @ApiOkResponse({ type: ScheduledTransferResponse })
  @ApiProblems(400, 401, 403, ErrorCode.NotFound, 503)
  async get(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ScheduledTransferResponse> {
    return ScheduledTransferResponse.of(await this.schedules.get(caller, referenceId));
  }

  @Get(':referenceId/runs')
  @ApiOperation({
    summary: "A scheduled transfer's runs, newest first (its sender or receiver)",
    description:
      'COMPLETED names its transaction; FAILED carries the problem the transfer answered (to the sender; the ' +
      'receiver reads only payment-not-completed, "The payment could not be completed", never the sender\'s ' +
      'balance, freeze or limits), and is not retried; MISSED: the service was down for 24 hours or more past the ' +
      'due time, and nothing moved.',
  })
  @ApiParam(REFERENCE)
  @ApiOkResponse({ type: [ScheduledTransferRunResponse] })
  @ApiProblems(400, 401, 403, ErrorCode.NotFound, 503)
  async runs(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ScheduledTransferRunResponse[]> {
    return (await this.schedules.runs(caller, referenceId)).map(ScheduledTransferRunResponse.of);
  }

  @Post(':referenceId/pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'Pause (the sender): occurrences due while paused are skipped' })
  @ApiParam(REFERENCE)
  @ApiOkResponse({ type: ScheduledTransferResponse })
  @ApiProblems(400, 401, 403, ErrorCode.NotFound, 409, 503)
  async pause(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ScheduledTransferResponse> {
    return ScheduledTransferResponse.of(await this.schedules.pause(caller, referenceId));
  }

  @Post(':referenceId/resume')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume (the sender): the next run is the next occurrence after now' })
  @ApiParam(REFERENCE)
  @ApiOkResponse({ type: ScheduledTransferResponse })
  @ApiProblems(400, 401, 403, ErrorCode.NotFound, 409, 503)
  async resume(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ScheduledTransferResponse> {
    return ScheduledTransferResponse.of(await this.schedules.resume(caller, referenceId));
  }

  @Post(':referenceId/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel (the sender): nothing more runs' })
  @ApiParam(REFERENCE)
  @ApiOkResponse({ type: ScheduledTransferResponse })
  @ApiProblems(400, 401, 403, ErrorCode.NotFound, 409, 503)
  async cancel(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ScheduledTransferResponse> {
    return ScheduledTransferResponse.of(await this.schedules.cancel(caller, referenceId));
  }
}

@ApiTags('Scheduled transfers')
@ApiBearerAuth()
@Controller('api/v1/users')
export class UserScheduledTransfersController {
  constructor(private readonly schedules: ScheduledTransfersService) {}

  @Get(':referenceId/scheduled-transfers')
  @ApiOperation({ summary: "The owner's scheduled transfers as sender, newest first" })
  @ApiParam({ ...REFERENCE, description: "The user's reference ID" })
  @ApiOkResponse({ type: [ScheduledTransferResponse] })
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 503)
  async list(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ScheduledTransferResponse[]> {
    return (await this.schedules.listForUser(caller, referenceId)).map(ScheduledTransferResponse.of);
  }
}
