import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { formatMoney } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { assertTransferAmountMax } from '../limits/transfer-amount-max';
import { IdempotencyStore } from '../idempotency/idempotency.store';
import type { IdempotentAnswer, MovementResult } from '../idempotency/stored-outcome';
import { MovementRunner, type MovementRequest, movementKey, newMovementIds } from '../movements/movement-runner';
import { UpiVerificationService } from '../users/upi-verification.service';
import { TransferBatcher } from './transfer-batcher';
import { TRANSFER_FUNDS } from './transfer-parameters';
import type { TransferRequest } from './transfer.dto';

export interface TransferCommand extends MovementRequest {
  request: TransferRequest;
  /** Set when the transfer pays a payment request (src/payment-requests/). */
  paymentRequestReferenceId?: string;
}

/**
 * POST /api/v1/transactions after the pipeline (identity, sender = caller, rate limit,
 * Idempotency-Key, body validation): verify the receiver, run the transfer (alone or in a group
 * commit, TransferBatcher), render its outcome.
 */
@Injectable()
export class TransferService {
  constructor(
    private readonly batcher: TransferBatcher,
    private readonly idempotency: IdempotencyStore,
    private readonly upiVerification: UpiVerificationService,
    private readonly movements: MovementRunner,
    private readonly config: AppConfig,
  ) {}

  async transfer(command: TransferCommand): Promise<IdempotentAnswer> {
    const { request, context, paymentRequestReferenceId } = command;
    assertTransferAmountMax(request.amount, this.config.transferAmountMax);
    const amount = formatMoney(request.amount);
    const note = request.note ?? null;
    // Canonical form: equal requests hash equally whatever their case, key order or number format.
    const key = movementKey(command, {
      senderUpiId: request.senderUpiId.toLowerCase(),
      receiverUpiId: request.receiverUpiId.toLowerCase(),
      amount,
      note,
      // Only a payment names its request, so a plain transfer's hash is what it always was.
      ...(paymentRequestReferenceId && { paymentRequestReferenceId }),
    });
    const result =
      (await this.verifyReceiver(request.receiverUpiId, key.owner, key.idempotencyKey, key.requestHash)) ??
      (await this.batcher.transfer({
        ...key,
        senderUpiId: request.senderUpiId,
        receiverUpiId: request.receiverUpiId,
        amount,
        note,
        ...newMovementIds(),
        context: paymentRequestReferenceId ? { ...context, paymentRequestReferenceId } : context,
      }));
    return this.movements.answer(TRANSFER_FUNDS, result);
  }

  /**
   * The receiver must pass the external UPI verification before anything is written. When the
   * provider cannot answer (503), a key that already holds a finished outcome is still replayed:
   * the client retrying a completed transfer gets its answer, not an outage. Placing a hold
   * (src/holds) checks its payee the same way.
   */
  async verifyReceiver(
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
