import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { requireSelf } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { createValidationPipe } from '../common/http/validation';
import { formatMoney } from '../common/money/money';
import { PgErrorCode, pgErrorCode } from '../database/postgres-errors';
import { AppConfig } from '../config/app-config';
import { readIdempotencyKey, requestHash } from '../idempotency/idempotency-key';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import { UpiVerificationService } from '../users/upi-verification.service';
import { TransferRateLimiter } from './transfer-rate-limiter';
import { TransferRepository } from './transfer.repository';
import { TransferRequest } from './transfer.dto';

export interface TransferCommand {
  caller: AuthenticatedUser;
  body: unknown;
  idempotencyKey: string | string[] | undefined;
  instance: string;
  requestId: string;
}

export interface TransferOutcome {
  status: number;
  /** JSON text: the transaction (201) or a problem; replays return the stored text byte for byte. */
  body: string;
  replayed: boolean;
}

/** Endpoint 7, in the order ARCHITECTURE.md sets: identity, rate limit, validation, then one transaction. */
@Injectable()
export class TransferService {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly config: AppConfig,
    private readonly rateLimiter: TransferRateLimiter,
    private readonly repository: TransferRepository,
    private readonly upiVerification: UpiVerificationService,
    private readonly outbox: OutboxRelay,
  ) {}

  async transfer(command: TransferCommand): Promise<TransferOutcome> {
    assertSenderIsCaller(command.body, command.caller);
    await this.rateLimiter.consume(command.caller.upiId);
    const idempotencyKey = readIdempotencyKey(command.idempotencyKey);
    const request = (await this.validation.transform(command.body, {
      type: 'body',
      metatype: TransferRequest,
    })) as TransferRequest;
    const amount = formatMoney(request.amount);
    const note = request.note ?? null;
    const owner = command.caller.upiId.toLowerCase();
    const hash = requestHash({
      senderUpiId: request.senderUpiId.toLowerCase(),
      receiverUpiId: request.receiverUpiId.toLowerCase(),
      amount,
      note,
    });
    const stored = await this.verifyReceiver(request.receiverUpiId, owner, idempotencyKey, hash);
    const result =
      stored ??
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
        errorsBaseUrl: this.config.errorsBaseUrl,
        instance: command.instance,
        requestId: command.requestId,
      }));
    if (result.body === null) {
      throw new ApiError(
        ErrorCode.IdempotencyKeyReused,
        'This Idempotency-Key was already used for a different request; use a new key for a new transfer',
      );
    }
    if (result.status === 201 && !result.replayed) this.outbox.nudge();
    return { status: result.status, body: result.body, replayed: result.replayed };
  }

  /**
   * The receiver must pass the external UPI verification before anything is written. When the
   * provider cannot answer (503), a key that already holds a finished outcome is still replayed:
   * the client retrying a completed transfer gets its answer, not an outage.
   */
  private async verifyReceiver(receiverUpiId: string, owner: string, key: string, hash: string) {
    try {
      await this.upiVerification.verify(receiverUpiId);
      return null;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== ErrorCode.ServiceUnavailable) throw error;
      const stored = await this.repository.findStoredOutcome(owner, key, hash);
      if (!stored) throw error;
      return stored;
    }
  }

  private async execute(call: Parameters<TransferRepository['execute']>[0]) {
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

/** Rule 1: only the caller may send from their account; checked before anything is locked or written. */
function assertSenderIsCaller(body: unknown, caller: AuthenticatedUser): void {
  const sender = (body as { senderUpiId?: unknown } | null)?.senderUpiId;
  if (typeof sender === 'string')
    requireSelf(caller, sender, 'senderUpiId must be the UPI ID of the authenticated user');
}
