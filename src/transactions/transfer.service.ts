import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { formatMoney } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { assertTransferAmountMax } from '../limits/transfer-amount-max';
import { requestHash } from '../idempotency/idempotency-key';
import { IdempotencyStore } from '../idempotency/idempotency.store';
import type { AnswerContext, IdempotentAnswer, MovementResult } from '../idempotency/stored-outcome';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import { UpiVerificationService } from '../users/upi-verification.service';
import { OutcomeRenderer } from './outcome-renderer';
import { TransferBatcher } from './transfer-batcher';
import type { TransferRequest } from './transfer.dto';

export interface TransferCommand {
  caller: AuthenticatedUser;
  request: TransferRequest;
  idempotencyKey: string;
  context: AnswerContext;
  /** Set when the transfer pays a payment request (src/payment-requests/). */
  paymentRequestReferenceId?: string;
}

/**
 * Endpoint 7 after the pipeline (identity, sender = caller, rate limit, Idempotency-Key, body
 * validation): verify the receiver, run the transfer (alone or in a group commit, TransferBatcher),
 * render its outcome.
 */
@Injectable()
export class TransferService {
  constructor(
    private readonly batcher: TransferBatcher,
    private readonly idempotency: IdempotencyStore,
    private readonly upiVerification: UpiVerificationService,
    private readonly renderer: OutcomeRenderer,
    private readonly outbox: OutboxRelay,
    private readonly config: AppConfig,
  ) {}

  async transfer({
    caller,
    request,
    idempotencyKey,
    context,
    paymentRequestReferenceId,
  }: TransferCommand): Promise<IdempotentAnswer> {
    assertTransferAmountMax(request.amount, this.config.transferAmountMax);
    const amount = formatMoney(request.amount);
    const note = request.note ?? null;
    const owner = caller.upiId.toLowerCase();
    // Canonical form: equal requests hash equally whatever their case, key order or number format.
    const hash = requestHash({
      senderUpiId: request.senderUpiId.toLowerCase(),
      receiverUpiId: request.receiverUpiId.toLowerCase(),
      amount,
      note,
      // Only a payment names its request, so a plain transfer's hash is what it always was.
      ...(paymentRequestReferenceId && { paymentRequestReferenceId }),
    });
    const result =
      (await this.verifyReceiver(request.receiverUpiId, owner, idempotencyKey, hash)) ??
      (await this.batcher.transfer({
        owner,
        idempotencyKey,
        requestHash: hash,
        senderUpiId: request.senderUpiId,
        receiverUpiId: request.receiverUpiId,
        amount,
        note,
        referenceId: randomUUID(),
        eventId: randomUUID(),
        context: paymentRequestReferenceId ? { ...context, paymentRequestReferenceId } : context,
      }));
    if (result.outcome.code === 'completed' && !result.replayed) this.outbox.nudge();
    return this.renderer.render(result);
  }

  /**
   * The receiver must pass the external UPI verification before anything is written. When the
   * provider cannot answer (503), a key that already holds a finished outcome is still replayed:
   * the client retrying a completed transfer gets its answer, not an outage.
   */
  private async verifyReceiver(
    receiverUpiId: string,
    owner: string,
    key: string,
    hash: string,
  ): Promise<MovementResult | null> {
    try {
      await this.upiVerification.verify(receiverUpiId);
      return null;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== ErrorCode.ServiceUnavailable) throw error;
      const stored = await this.idempotency.findFinished(owner, key, hash);
      if (!stored) throw error;
      return stored;
    }
  }
}
