import { Injectable, Optional } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { problemBody } from '../common/errors/problem-body';
import { AppConfig } from '../config/app-config';
import type { IdempotentAnswer, MovementResult, StoredOutcome } from '../idempotency/stored-outcome';
import { LimitsMetrics } from '../limits/limits-metrics';
import { TransactionResponse, type TransactionFields } from '../transactions/transaction.dto';
import {
  COMPLETED_STATUS,
  isMovementOutcomeCode,
  MOVEMENT_REFUSALS,
  type MovementRefusal,
  type MovementRefusalCode,
} from './movement-outcomes';

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/**
 * The one place a movement's outcome becomes HTTP: 201 with the transaction, or the problem its
 * code maps to (movement-outcomes.ts). Only stored facts are used (time, request id, path of the
 * first answer), so a replay, even after a restart, is the same bytes. A new movement adds its
 * refusal codes to MOVEMENT_REFUSALS, nothing here.
 */
@Injectable()
export class OutcomeRenderer {
  constructor(
    private readonly config: AppConfig,
    @Optional() private readonly limits?: LimitsMetrics,
  ) {}

  render({ outcome, replayed }: MovementResult): IdempotentAnswer {
    const { code } = outcome;
    if (!isMovementOutcomeCode(code)) {
      throw new Error(`No rendering for movement outcome ${code} (${JSON.stringify(outcome)})`);
    }
    switch (code) {
      case 'completed':
        return created(withPaymentRequest(outcome.data ?? {}, outcome), replayed);
      case 'key-reused':
        // Not a stored answer: the problem is about this request, so it is rendered fresh.
        throw new ApiError(
          ErrorCode.IdempotencyKeyReused,
          'This Idempotency-Key was already used for a different request; use a new key for a new transfer',
        );
      case 'deferred':
        throw new Error('A deferred batch item is run alone by TransferBatcher, never rendered');
      default:
        return this.refusal(code, outcome, replayed);
    }
  }

  private refusal(code: MovementRefusalCode, outcome: StoredOutcome, replayed: boolean): IdempotentAnswer {
    const data = outcome.data ?? {};
    const refusal: MovementRefusal = MOVEMENT_REFUSALS[code];
    if (!replayed) this.countRefusal(code, data);
    const body = problemBody(this.config.errorsBaseUrl, refusal.problem, refusal.detail(data), {
      instance: outcome.instance ?? '',
      timestamp: outcome.at ?? '',
      requestId: outcome.requestId ?? '',
    });
    return {
      status: body.status,
      contentType: PROBLEM_TYPE,
      body: JSON.stringify({ ...body, ...refusal.members?.(data) }),
      headers: {},
      replayed,
      problemType: refusal.problem,
    };
  }

  /** Limits and freezes count their refusals (src/limits), once per decision, never per replay. */
  private countRefusal(code: MovementRefusalCode, data: Record<string, unknown>): void {
    if (code === 'limit-exceeded') this.limits?.refused((data.limit as { name: string }).name);
    if (code === 'account-frozen') this.limits?.refused('account-frozen');
  }
}

/** The SQL names status and type only for movements other than a completed transfer. */
type CompletedData = Omit<TransactionFields, 'status' | 'type'> & Partial<Pick<TransactionFields, 'status' | 'type'>>;

/** A payment's outcome names its request beside the transaction's data (the transfer's context). */
function withPaymentRequest(data: Record<string, unknown>, outcome: StoredOutcome): CompletedData {
  const fields = data as unknown as CompletedData;
  return outcome.paymentRequestReferenceId
    ? { ...fields, paymentRequestReferenceId: outcome.paymentRequestReferenceId }
    : fields;
}

function created(fields: CompletedData, replayed: boolean): IdempotentAnswer {
  const body = TransactionResponse.from({
    ...fields,
    status: fields.status ?? 'COMPLETED',
    type: fields.type ?? 'TRANSFER',
  });
  return {
    status: COMPLETED_STATUS,
    contentType: JSON_TYPE,
    body: JSON.stringify(body),
    headers: { Location: `/api/v1/transactions/${fields.referenceId}` },
    replayed,
    referenceId: fields.referenceId,
  };
}
