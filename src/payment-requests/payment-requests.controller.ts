import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentUser } from '../access/access.decorators';
import { requireOwner } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { UuidParamPipe } from '../common/http/params';
import { type ListPage, readListRequest, readOneOf, single } from '../common/paging/page';
import { ApiListPageResponse, ApiListQueries } from '../common/paging/paging.docs';
import { ApiProblems } from '../docs/api-docs';
import { AnswerContextOf, IdempotencyKey } from '../movements/movement-interceptor';
import type { AnswerContext, IdempotentAnswer } from '../idempotency/stored-outcome';
import { MovementRoute } from '../movements/movement-route';
import { TransactionResponse } from '../transactions/transaction.dto';
import { TransferRateLimitGuard } from '../transactions/transfer.guards';
import { UsersService } from '../users/users.service';
import {
  CreatePaymentRequest,
  PAYMENT_REQUEST_STATUSES,
  PaymentRequestResponse,
  PayPaymentRequest,
} from './payment-request.dto';
import { PaymentRequestsService } from './payment-requests.service';

/** A code's bytes never change (qr-codes.ts): the caller's own cache may keep it for as long as a request can live. */
const QR_CACHE_CONTROL = 'private, max-age=604800, immutable';
const QR_CACHE_HEADERS = {
  ETag: {
    description: 'Names these exact bytes: send it in If-None-Match',
    required: true,
    schema: { type: 'string', example: '"3q2-7wqzDk1tUhz6jK3vY0Hqo4R1cF9bZ1n8pQ0aTQs"' },
  },
  'Cache-Control': {
    description: 'The image never changes: a client may keep it',
    required: true,
    schema: { type: 'string', example: QR_CACHE_CONTROL },
  },
};

@ApiTags('Payment requests')
@ApiBearerAuth()
@Controller('api/v1')
export class PaymentRequestsController {
  constructor(
    private readonly requests: PaymentRequestsService,
    private readonly users: UsersService,
  ) {}

  @Post('payment-requests')
  @ApiOperation({ summary: 'Ask to be paid: the caller is the payee; share the upiUri or its QR code with the payer' })
  @ApiBody({
    type: CreatePaymentRequest,
    examples: { fixed: { value: { amount: 250.5, note: 'Dinner' } }, open: { value: {} } },
  })
  @ApiCreatedResponse({ type: PaymentRequestResponse, description: 'Location names the request' })
  @ApiProblems(400, 401, 415, 422, ErrorCode.PaymentRequestLimitReached)
  async create(
    @Body() body: CreatePaymentRequest,
    @CurrentUser() caller: AuthenticatedUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PaymentRequestResponse> {
    const created = await this.requests.create(caller, body);
    void reply.header('Location', `/api/v1/payment-requests/${created.referenceId}`);
    return created;
  }

  @Get('payment-requests/:referenceId')
  @ApiOperation({ summary: 'One payment request; any authenticated user with its id may read it (it is shared)' })
  @ApiOkResponse({ type: PaymentRequestResponse })
  @ApiProblems(400, 401, ErrorCode.PaymentRequestNotFound)
  get(@Param('referenceId', UuidParamPipe) referenceId: string): Promise<PaymentRequestResponse> {
    return this.requests.get(referenceId);
  }

  @Get('payment-requests/:referenceId/qr')
  @ApiOperation({
    summary: "A QR code of the request's upiUri: SVG, or PNG with format=png",
    description:
      'The image never changes: keep it, and send its ETag back in If-None-Match to hear 304 instead of the bytes.',
  })
  @ApiQuery({ name: 'format', required: false, enum: ['svg', 'png'] })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy the client holds' })
  @ApiProduces('image/svg+xml', 'image/png')
  @ApiOkResponse({
    description: 'The QR code',
    headers: QR_CACHE_HEADERS,
    content: {
      'image/svg+xml': { schema: { type: 'string' } },
      'image/png': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiResponse({
    status: 304,
    description: 'If-None-Match names this image: the copy held is current',
    headers: QR_CACHE_HEADERS,
  })
  @ApiProblems(400, 401, ErrorCode.PaymentRequestNotFound, 422, 429)
  async qr(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Query() query: Record<string, unknown>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @CurrentUser() caller: AuthenticatedUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer | undefined> {
    const format = single(query, 'format') ?? 'svg';
    if (format !== 'svg' && format !== 'png') {
      throw new ValidationError({ format: 'format must be one of: svg, png' }, 'Invalid QR code format');
    }
    const { etag, bytes } = await this.requests.qr(caller, referenceId, format, ifNoneMatch);
    // Replaces the guard's no-store: the image holds nothing the caller could not read from the request itself.
    void reply.header('ETag', etag).header('Cache-Control', QR_CACHE_CONTROL);
    if (bytes === undefined) {
      void reply.status(304);
      return undefined;
    }
    void reply.type(format === 'png' ? 'image/png' : 'image/svg+xml; charset=utf-8');
    return bytes;
  }

  @Post('payment-requests/:referenceId/payments')
  @ApiOperation({
    summary: 'Pay a request: a transfer from the caller to the payee, exactly once per Idempotency-Key',
    description: 'Every transfer rule applies; the request turns PAID in the same database transaction.',
  })
  @ApiBody({ type: PayPaymentRequest, examples: { fixed: { value: {} }, open: { value: { amount: 120 } } } })
  @ApiCreatedResponse({ type: TransactionResponse, description: 'Paid; the body carries paymentRequestReferenceId' })
  @MovementRoute({
    kind: 'transfer',
    names: 'payment',
    problems: [
      ErrorCode.SelfTransfer,
      ErrorCode.PaymentRequestNotFound,
      ErrorCode.PaymentRequestNotOpen,
      ErrorCode.InsufficientBalance,
      ErrorCode.InvalidUpiId,
    ],
  })
  @UseGuards(TransferRateLimitGuard)
  pay(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Body() body: PayPaymentRequest,
    @IdempotencyKey() idempotencyKey: string,
    @CurrentUser() caller: AuthenticatedUser,
    @AnswerContextOf() context: AnswerContext,
  ): Promise<IdempotentAnswer> {
    return this.requests.pay(caller, referenceId, body, idempotencyKey, context);
  }

  @Post('payment-requests/:referenceId/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel an OPEN request (the payee only)' })
  @ApiOkResponse({ type: PaymentRequestResponse })
  @ApiProblems(400, 401, 403, ErrorCode.PaymentRequestNotFound, ErrorCode.PaymentRequestNotOpen)
  cancel(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<PaymentRequestResponse> {
    return this.requests.cancel(caller, referenceId);
  }

  @Get('users/:referenceId/payment-requests')
  @ApiOperation({ summary: "The caller's requests as payee, newest first, by page or by cursor" })
  @ApiListQueries()
  @ApiQuery({ name: 'status', required: false, enum: PAYMENT_REQUEST_STATUSES })
  @ApiListPageResponse(PaymentRequestResponse)
  @ApiProblems(400, 401, 403, ErrorCode.UserNotFound, 422)
  async list(
    @Param('referenceId', UuidParamPipe) referenceId: string,
    @Query() query: Record<string, unknown>,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<ListPage<PaymentRequestResponse>> {
    const status = readOneOf(query, 'status', PAYMENT_REQUEST_STATUSES);
    const request = readListRequest(query, { allowed: ['createdAt'], fallback: 'createdAt', fromQuery: false });
    requireOwner(caller, await this.users.findByReferenceId(referenceId), `No user with reference ID ${referenceId}`);
    return this.requests.listOf(referenceId, status, request);
  }
}
