import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblems } from '../docs/api-docs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { UuidParamPipe } from '../common/http/params';
import { type ListPage, readListRequest } from '../common/paging/page';
import { ApiListPageResponse, ApiListQueries } from '../common/paging/paging.docs';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/idempotency-key';
import { TransactionResponse } from './transaction.dto';
import { TRANSACTION_SORT_KEYS, TransactionsService } from './transactions.service';
import { TransferMetrics } from './transfer-metrics';
import { TransferRequest } from './transfer.dto';
import { TransferService } from './transfer.service';

@ApiTags('Transactions')
@ApiBearerAuth()
@Controller('api/v1/transactions')
export class TransactionsController {
  constructor(
    private readonly transfers: TransferService,
    private readonly transactions: TransactionsService,
    private readonly metrics: TransferMetrics,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Move money from the caller to another user, exactly once per Idempotency-Key' })
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: true,
    description: 'Names this transfer: a retry with the same key and body replays the stored result',
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[A-Za-z0-9_.:-]+$',
      example: 'order-2026-11-22-0001',
    },
  })
  @ApiBody({ type: TransferRequest })
  @ApiCreatedResponse({
    type: TransactionResponse,
    description: 'Completed; a replay carries Idempotent-Replayed: true',
  })
  @ApiProblems(400, 401, 403, 404, 409, 415, 422, 429, 503)
  async create(
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @CurrentUser() caller: AuthenticatedUser,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const outcome = await this.metrics.measure(() =>
      this.transfers.transfer({
        caller,
        body,
        idempotencyKey,
        instance: request.url.split('?')[0],
        requestId: String(request.id),
      }),
    );
    if (outcome.status === 201) {
      const { referenceId } = JSON.parse(outcome.body) as { referenceId: string };
      void reply.header('Location', `/api/v1/transactions/${referenceId}`);
    }
    if (outcome.replayed) void reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    // The body is already JSON text (written by the transfer function): sent as is, never re-serialized.
    void reply
      .status(outcome.status)
      .type(outcome.status < 400 ? 'application/json; charset=utf-8' : 'application/problem+json; charset=utf-8')
      .send(outcome.body);
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
    const page = await this.transactions.listFor(upiId, caller, request);
    return { ...page, content: page.content.map(TransactionResponse.of) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One transaction, readable by its sender and receiver' })
  @ApiOkResponse({ type: TransactionResponse })
  @ApiProblems(400, 401, 403, 404)
  async get(
    @Param('id', UuidParamPipe) id: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<TransactionResponse> {
    return TransactionResponse.of(await this.transactions.get(id, caller));
  }
}
