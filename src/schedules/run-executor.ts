import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { parseMoney } from '../common/money/money';
import { AppConfig } from '../config/app-config';
import { TransferService } from '../transactions/transfer.service';
import type { InstructionRow, NewRun } from './scheduled-transfers.repository';
import { ScheduledTransfersRepository } from './scheduled-transfers.repository';

/** Failures that say nothing about the transfer: the run stays due and is tried again on a later tick. */
const TRANSIENT = new Set<ErrorCode>([
  ErrorCode.ServiceUnavailable,
  ErrorCode.IdempotencyKeyInFlight,
  // A transfer still rolled back by a deadlock or a serialization failure after its retries.
  ErrorCode.Conflict,
  ErrorCode.InternalError,
]);

/** Thrown for a run that must stay due: nothing about it is recorded. */
export class RunNotFinished extends Error {
  constructor(
    readonly referenceId: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One occurrence as an ordinary transfer by the sender, through TransferService (UPI verification of
 * the receiver, then the group-commit batch path with every rule the SQL checks), under an
 * Idempotency-Key derived from the instruction and the due time: however often an occurrence is
 * attempted (a crash before its run was recorded, another instance), money moves once.
 *
 * The per-second rate limit is not applied: it guards the API against a client's bursts, and runs
 * are the service's own work, paced by the runner's lanes and bounded by the per-user cap on
 * instructions. Applied, it refused runs that merely fell due together, and a refused run is not retried.
 */
@Injectable()
export class RunExecutor {
  constructor(
    private readonly transfers: TransferService,
    private readonly repository: ScheduledTransfersRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * "/" is outside the alphabet of a client's Idempotency-Key (IDEMPOTENCY_KEY_SCHEMA), so no client
   * can use a run's key first and make the run fail or replay someone else's answer.
   */
  static idempotencyKey(referenceId: string, dueAt: Date): string {
    return `scheduled/${referenceId}/${dueAt.getTime()}`;
  }

  /** The key of versions before the namespace: a client could send it too. */
  static legacyIdempotencyKey(referenceId: string, dueAt: Date): string {
    return `scheduled:${referenceId}:${dueAt.getTime()}`;
  }

  static instance(referenceId: string): string {
    return `/api/v1/scheduled-transfers/${referenceId}/runs`;
  }

  async run(instruction: InstructionRow & { senderReferenceId: string }, dueAt: Date): Promise<NewRun> {
    const instance = RunExecutor.instance(instruction.referenceId);
    // An occurrence the previous version transferred but did not record (it died meanwhile) must not
    // move money again under the new key. Only the runner writes this instance, never a client.
    const legacy = await this.repository.completedRunTransfer(
      instruction.senderUpiId,
      RunExecutor.legacyIdempotencyKey(instruction.referenceId, dueAt),
      instance,
    );
    if (legacy) return { status: 'COMPLETED', transactionReferenceId: legacy };
    try {
      const answer = await this.transfers.transfer({
        caller: { upiId: instruction.senderUpiId, referenceId: instruction.senderReferenceId, roles: [] },
        request: {
          senderUpiId: instruction.senderUpiId,
          receiverUpiId: instruction.receiverUpiId,
          amount: parseMoney(instruction.amount),
          note: instruction.note ?? undefined,
        },
        idempotencyKey: RunExecutor.idempotencyKey(instruction.referenceId, dueAt),
        context: { requestId: randomUUID(), instance },
      });
      if (answer.status === 201) return { status: 'COMPLETED', transactionReferenceId: answer.referenceId };
      if (answer.status >= 500) throw new RunNotFinished(instruction.referenceId, `transfer answered ${answer.status}`);
      // What the renderer recorded on the answer: the body is never parsed back.
      const problem = {
        type: `${this.config.errorsBaseUrl}/${answer.problemType}`,
        detail: answer.problemDetail ?? '',
      };
      return { status: 'FAILED', problem };
    } catch (error) {
      if (!(error instanceof ApiError) || TRANSIENT.has(error.code)) {
        throw error instanceof RunNotFinished ? error : new RunNotFinished(instruction.referenceId, String(error));
      }
      return {
        status: 'FAILED',
        problem: { type: `${this.config.errorsBaseUrl}/${error.code}`, detail: error.detail },
      };
    }
  }
}
