import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { formatMoney } from '../common/money/money';
import { PgErrorCode, pgErrorCode } from '../common/errors/postgres-errors';
import { requestHash } from '../idempotency/idempotency-key';
import { IdempotencyStore } from '../idempotency/idempotency.store';
import type { AnswerContext, IdempotentAnswer, MovementResult } from '../idempotency/stored-outcome';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import { UpiVerificationService } from '../users/upi-verification.service';
import { OutcomeRenderer } from './outcome-renderer';
import { type TransferCall, TransferRepository } from './transfer.repository';
import type { TransferRequest } from './transfer.dto';

export interface TransferCommand {
  caller: AuthenticatedUser;
  request: TransferRequest;
  idempotencyKey: string;
  context: AnswerContext;
}

/**
 * Endpoint 7 after the pipeline (identity, sender = caller, rate limit, Idempotency-Key, body
 * validation): verify the receiver, run sql/transfer_funds.sql once, render its outcome.
 */
@Injectable()
export class TransferService {
  constructor(
    private readonly repository: TransferRepository,
    private readonly idempotency: IdempotencyStore,
    private readonly upiVerification: UpiVerificationService,
    private readonly renderer: OutcomeRenderer,
    private readonly outbox: OutboxRelay,
  ) {}

  async transfer({ caller, request, idempotencyKey, context }: TransferCommand): Promise<IdempotentAnswer> {
    const amount = formatMoney(request.amount);
    const note = request.note ?? null;
    const owner = caller.upiId.toLowerCase();
    // Canonical form: equal requests hash equally whatever their case, key order or number format.
    const hash = requestHash({
      senderUpiId: request.senderUpiId.toLowerCase(),
      receiverUpiId: request.receiverUpiId.toLowerCase(),
      amount,
      note,
    });
    const result =
      (await this.verifyReceiver(request.receiverUpiId, owner, idempotencyKey, hash)) ??
      (await this.execute({
        owner,
        idempotencyKey,
        requestHash: hash,
        senderUpiId: request.senderUpiId,
        receiverUpiId: request.receiverUpiId,
        amount,
        note,
        referenceId: randomUUID(),
        eventId: randomUUID(),
        context,
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

  private async execute(call: TransferCall): Promise<MovementResult> {
    try {
      return await this.repository.execute(call);
    } catch (error) {
      const code = pgErrorCode(error);
      if (code === PgErrorCode.LockNotAvailable) {
        throw new ApiError(
          ErrorCode.IdempotencyKeyInFlight,
          'A request with this Idempotency-Key is still being processed; retry shortly',
        );
      }
      if (code === PgErrorCode.NumericValueOutOfRange) {
        throw new ApiError(
          ErrorCode.ValidationFailed,
          'The receiver balance would exceed the largest supported amount',
          {
            errors: { amount: 'would overflow the receiver balance' },
          },
        );
      }
      throw error;
    }
  }
}
