import { Body, Controller, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { UuidParamPipe } from '../common/http/params';
import { ErrorCode } from '../common/errors/error-code';
import { AnswerContextOf, IdempotencyKey } from '../movements/movement-interceptor';
import { MovementRoute } from '../movements/movement-route';
import type { AnswerContext, IdempotentAnswer } from '../idempotency/stored-outcome';
import { ReversalRequest } from './reversal.dto';
import { ReversalService } from './reversal.service';
import { TransactionResponse } from './transaction.dto';
import { TransferRateLimitGuard } from './transfer.guards';

@ApiTags('Transactions')
@ApiBearerAuth()
@Controller('api/v1/transactions')
export class ReversalsController {
  constructor(private readonly reversals: ReversalService) {}

  @Post(':referenceId/reversals')
  @ApiOperation({
    summary: 'Refund a transfer, in full or in part, by its receiver, exactly once per Idempotency-Key',
    description:
      'Moves money back from the original receiver to the original sender. Reversals of one transfer never ' +
      'add up to more than it (422 reversal-exceeds-remaining); only a TRANSFER can be reversed (422 ' +
      'not-reversible). The original then reads with status PARTIALLY_REVERSED or REVERSED and reversedAmount.',
  })
  @ApiParam({ name: 'referenceId', format: 'uuid', description: "The transfer's referenceId" })
  @ApiBody({
    type: ReversalRequest,
    examples: {
      partial: { summary: 'Part of the amount', value: { amount: 40.25, note: 'refund: item returned' } },
      full: { summary: 'All that remains', value: {} },
    },
  })
  @ApiCreatedResponse({
    type: TransactionResponse,
    description: 'A REVERSAL transaction with originalReferenceId; a replay carries Idempotent-Replayed: true',
  })
  @MovementRoute({
    kind: 'reversal',
    keyExample: 'refund-2026-11-22-0001',
    problems: [
      403,
      ErrorCode.TransactionNotFound,
      ErrorCode.ReversalExceedsRemaining,
      ErrorCode.NotReversible,
      ErrorCode.InsufficientBalance,
      ErrorCode.AccountFrozen,
    ],
  })
  // The per-user limit of transfers covers reversals too: each one is a money movement (issue 18).
  @UseGuards(TransferRateLimitGuard)
  create(
    @Param('referenceId', UuidParamPipe) originalReferenceId: string,
    @Body() request: ReversalRequest,
    @IdempotencyKey() idempotencyKey: string,
    @CurrentUser() caller: AuthenticatedUser,
    @AnswerContextOf() context: AnswerContext,
  ): Promise<IdempotentAnswer> {
    return this.reversals.reverse({ caller, originalReferenceId, request, idempotencyKey, context });
  }
}
