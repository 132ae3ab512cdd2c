import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentUser, Roles } from '../access/access.decorators';
import { type AuthenticatedUser, ROLE_ADMIN } from '../access/authenticated-user';
import { ErrorCode } from '../common/errors/error-code';
import { UuidParamPipe } from '../common/http/params';
import { type ListPage, readListRequest } from '../common/paging/page';
import { ApiListPageResponse, ApiListQueries } from '../common/paging/paging.docs';
import { ApiProblems } from '../docs/api-docs';
import { DISPUTE_STATUSES, DisputeResponse, ResolveDisputeRequest } from './dispute.dto';
import { readDisputeFilter } from './dispute-query';
import { DisputesService } from './disputes.service';

@ApiTags('Admin')
@ApiBearerAuth()
@Controller('api/v1/admin/disputes')
export class DisputesAdminController {
  constructor(private readonly disputes: DisputesService) {}

  @Post(':referenceId/resolve')
  @Roles(ROLE_ADMIN)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Settle an ESCALATED dispute (admin): REFUND through the reversal path, or REJECT',
    description:
      "A refund the payee's balance cannot cover is 422 insufficient-balance and the dispute stays ESCALATED. " +
      'The refund defaults to the dispute amount, capped at what of the transfer is not yet reversed.',
  })
  @ApiParam({ name: 'referenceId', format: 'uuid', description: "The dispute's referenceId" })
  @ApiBody({
    type: ResolveDisputeRequest,
    examples: {
      refund: { value: { decision: 'REFUND', note: 'Merchant confirmed the duplicate charge' } },
      reject: { value: { decision: 'REJECT', note: 'Goods delivered, signed receipt on file' } },
    },
  })
  @ApiOkResponse({ type: DisputeResponse, description: 'RESOLVED, resolution REFUNDED or REJECTED' })
  @ApiProblems(
    400,
    401,
    403,
    ErrorCode.DisputeNotFound,
    ErrorCode.DisputeStatusConflict,
    ErrorCode.Conflict,
    415,
    422,
    ErrorCode.InsufficientBalance,
    ErrorCode.NotReversible,
    ErrorCode.ReversalExceedsRemaining,
    ErrorCode.AccountFrozen,
  )
  resolve(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Body() body: ResolveDisputeRequest,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<DisputeResponse> {
    const action = body.decision === 'REFUND' ? 'REFUND' : 'DISMISS';
    return this.disputes.act(caller, referenceId, action, { amount: body.amount, note: body.note });
  }

  @Get()
  @Roles(ROLE_ADMIN)
  @ApiOperation({ summary: 'Every dispute (admin), newest first; overdue=true: ESCALATED and past resolveBy' })
  @ApiListQueries()
  @ApiQuery({ name: 'status', required: false, enum: DISPUTE_STATUSES })
  @ApiQuery({ name: 'overdue', required: false, enum: ['true', 'false'] })
  @ApiListPageResponse(DisputeResponse)
  @ApiProblems(400, 401, 403, 422)
  list(@Query() query: Record<string, unknown>): Promise<ListPage<DisputeResponse>> {
    const filter = readDisputeFilter(query, true);
    const request = readListRequest(query, { allowed: ['createdAt'], fallback: 'createdAt', fromQuery: false });
    return this.disputes.listAll(filter, request);
  }
}
