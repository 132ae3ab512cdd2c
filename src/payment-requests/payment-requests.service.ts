import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isSameUpiId } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ApiError, forbidden, ValidationError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { ifNoneMatchHits } from '../common/http/conditional-get';
import { formatMoney, Money } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { type ListPage, type ListRequest, toCursorPage, toPage, withNextCursor } from '../common/paging/page';
import type { AnswerContext, IdempotentAnswer } from '../idempotency/stored-outcome';
import { TransferService } from '../transactions/transfer.service';
import {
  type CreatePaymentRequest,
  DEFAULT_EXPIRY_SECONDS,
  type PaymentRequestStatus,
  type PayPaymentRequest,
  PaymentRequestResponse,
} from './payment-request.dto';
import { type PaymentRequestRow, PaymentRequestsRepository } from './payment-requests.repository';
import { QrCodes, qrEtag } from './qr-codes';
import type { QrFormat } from './qr-render-pool';

/**
 * Payment requests: an invitation the payer chooses to pay (UPI has no P2P collect). Paying one
 * is a transfer through TransferService with the request's id in its context: every transfer rule
 * applies, and the transfer functions mark the request PAID in the same database transaction.
 */
@Injectable()
export class PaymentRequestsService {
  constructor(
    private readonly requests: PaymentRequestsRepository,
    private readonly transfers: TransferService,
    private readonly config: AppConfig,
    private readonly qrCodes: QrCodes,
  ) {}

  async create(caller: AuthenticatedUser, body: CreatePaymentRequest): Promise<PaymentRequestResponse> {
    const openMax = this.config.paymentRequestsOpenMax;
    const created = await this.requests.create(
      caller.referenceId,
      {
        referenceId: randomUUID(),
        amount: body.amount === undefined ? null : formatMoney(body.amount),
        note: body.note ?? null,
        expiresInSeconds: body.expiresInSeconds ?? DEFAULT_EXPIRY_SECONDS,
      },
      openMax,
    );
    if (!created) throw new ApiError(ErrorCode.UserNotFound, `No user with reference ID ${caller.referenceId}`);
    if ('limitReached' in created) {
      throw new ApiError(
        ErrorCode.PaymentRequestLimitReached,
        `You have ${openMax} open payment requests, the most allowed: cancel one, or wait until one is paid ` +
          `or expires (the next at ${created.limitReached.nextExpiresAt.toISOString()})`,
      );
    }
    return PaymentRequestResponse.of(created);
  }

  async get(referenceId: string): Promise<PaymentRequestResponse> {
    return PaymentRequestResponse.of(await this.require(referenceId));
  }

  /**
   * The request's QR code, or only its ETag when If-None-Match names it (the caller's copy is
   * current). A cached code is answered without reading the request: neither its upiUri nor its
   * existence ever changes.
   */
  async qr(
    caller: AuthenticatedUser,
    referenceId: string,
    format: QrFormat,
    ifNoneMatch: string | undefined,
  ): Promise<{ etag: string; bytes?: Buffer }> {
    const cached = this.qrCodes.cached(referenceId, format);
    if (cached) return ifNoneMatchHits(ifNoneMatch, cached.etag) ? { etag: cached.etag } : cached;
    const { upiUri } = await this.get(referenceId);
    const etag = qrEtag(upiUri, format);
    if (ifNoneMatchHits(ifNoneMatch, etag)) return { etag };
    return this.qrCodes.image(referenceId, upiUri, format, caller.referenceId);
  }

  /**
   * The amount rule is checked here (the request's amount never changes); whether the request is
   * still OPEN is decided in the transfer's transaction, so a replay of a paid request's key still
   * answers its 201.
   */
  async pay(
    caller: AuthenticatedUser,
    referenceId: string,
    body: PayPaymentRequest,
    idempotencyKey: string,
    context: AnswerContext,
  ): Promise<IdempotentAnswer> {
    const request = await this.require(referenceId);
    let amount = body.amount;
    if (request.amount === null) {
      if (amount === undefined) throw amountProblem('amount is required: this request leaves the amount to the payer');
    } else if (amount === undefined) {
      amount = new Money(request.amount);
    } else if (!amount.eq(request.amount)) {
      throw amountProblem(`amount must equal the requested ${formatMoney(new Money(request.amount))}`);
    }
    return this.transfers.transfer({
      caller,
      request: {
        senderUpiId: caller.upiId,
        receiverUpiId: request.payeeUpiId,
        amount,
        note: body.note ?? request.note ?? undefined,
      },
      idempotencyKey,
      context,
      paymentRequestReferenceId: request.referenceId,
    });
  }

  async cancel(caller: AuthenticatedUser, referenceId: string): Promise<PaymentRequestResponse> {
    const request = await this.require(referenceId);
    if (!isSameUpiId(request.payeeUpiId, caller.upiId)) throw forbidden('Only the payee may cancel a payment request');
    const cancelled = await this.requests.cancel(referenceId, caller.upiId);
    if (cancelled) return PaymentRequestResponse.of(cancelled);
    throw notOpen(await this.require(referenceId));
  }

  async listOf(
    payeeReferenceId: string,
    status: PaymentRequestStatus | undefined,
    request: ListRequest,
  ): Promise<ListPage<PaymentRequestResponse>> {
    if (request.kind === 'cursor') {
      const rows = await this.requests.listOf(payeeReferenceId, {
        status,
        afterId: request.afterId,
        take: request.size + 1,
      });
      const page = toCursorPage(rows, request, rowId);
      return { ...page, content: page.content.map(PaymentRequestResponse.of) };
    }
    const [rows, total] = await Promise.all([
      this.requests.listOf(payeeReferenceId, { status, take: request.size, offset: request.page * request.size }),
      this.requests.count(payeeReferenceId, status),
    ]);
    const page = withNextCursor(toPage(rows, request, total), request.sortBy, rowId);
    return { ...page, content: page.content.map(PaymentRequestResponse.of) };
  }

  private async require(referenceId: string): Promise<PaymentRequestRow> {
    const row = await this.requests.find(referenceId);
    if (!row)
      throw new ApiError(ErrorCode.PaymentRequestNotFound, `No payment request with reference ID ${referenceId}`);
    return row;
  }
}

const rowId = (row: { id: string }) => row.id;

function amountProblem(detail: string): ValidationError {
  return new ValidationError({ amount: detail }, detail);
}

function notOpen(request: PaymentRequestRow): ApiError {
  return new ApiError(
    ErrorCode.PaymentRequestNotOpen,
    `Payment request ${request.referenceId} is ${request.status}, not OPEN`,
  );
}
