import { Injectable, Optional } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { problemFromOccurrence } from '../common/errors/problem-body';
import { AppConfig } from '../config/app-config';
import type { IdempotentAnswer, MovementResult, StoredOutcome } from '../idempotency/stored-outcome';
import { limitDetail, limitMember } from '../limits/limit-problem';
import { LimitsMetrics } from '../limits/limits-metrics';
import { TransactionResponse, type TransactionFields } from './transaction.dto';

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** Every code a money movement's SQL function (or idempotent_replay) can answer. */
type MovementOutcomeCode =
  | 'completed'
  | 'self-transfer'
  | 'user-not-found'
  | 'insufficient-balance'
  | 'payment-request-not-open'
  | 'transaction-not-found'
  | 'not-transaction-receiver'
  | 'not-reversible'
  | 'reversal-exceeds-remaining'
  | 'limit-exceeded'
  | 'account-frozen'
  | 'key-reused'
  | 'legacy';

/**
 * The one place a movement's outcome becomes HTTP: 201 with the transaction, or a problem. Only
 * stored facts are used (time, request id, path of the first answer), so a replay, even after a
 * restart, is the same bytes. A new movement adds its failure codes here, nothing else.
 */
@Injectable()
export class OutcomeRenderer {
  constructor(
    private readonly config: AppConfig,
    @Optional() private readonly limits?: LimitsMetrics,
  ) {}

  render({ outcome, replayed }: MovementResult): IdempotentAnswer {
    const data = outcome.data ?? {};
    const code = outcome.code as MovementOutcomeCode;
    switch (code) {
      case 'completed':
        return created(withPaymentRequest(data, outcome), replayed);
      case 'self-transfer':
        return this.problem(
          outcome,
          ErrorCode.SelfTransfer,
          'Sender and receiver must be different accounts',
          replayed,
        );
      case 'user-not-found':
        return this.problem(outcome, ErrorCode.UserNotFound, `No user with UPI ID ${String(data.upiId)}`, replayed);
      case 'insufficient-balance':
        return this.problem(
          outcome,
          ErrorCode.InsufficientBalance,
          `Available balance ${String(data.available)} is less than the required amount ${String(data.required)}`,
          replayed,
        );
      case 'payment-request-not-open':
        return this.problem(
          outcome,
          ErrorCode.PaymentRequestNotOpen,
          `Payment request ${String(data.referenceId)} is ${String(data.status)}, not OPEN`,
          replayed,
        );
      case 'transaction-not-found':
        return this.problem(
          outcome,
          ErrorCode.TransactionNotFound,
          `No transaction with reference ID ${String(data.referenceId)}`,
          replayed,
        );
      case 'not-transaction-receiver':
        return this.problem(outcome, ErrorCode.Forbidden, 'Only the receiver of a transfer may reverse it', replayed);
      case 'not-reversible':
        return this.problem(
          outcome,
          ErrorCode.NotReversible,
          `Only a TRANSFER can be reversed; this transaction is a ${String(data.type)}`,
          replayed,
        );
      case 'reversal-exceeds-remaining':
        return this.problem(
          outcome,
          ErrorCode.ReversalExceedsRemaining,
          `The reversal of ${String(data.requested)} exceeds the ${String(data.remaining)} that remains reversible`,
          replayed,
        );
      case 'limit-exceeded':
        if (!replayed) this.limits?.refused(limitMember(data).limit.name as string);
        return this.problem(outcome, ErrorCode.LimitExceeded, limitDetail(data), replayed, limitMember(data));
      case 'account-frozen':
        if (!replayed) this.limits?.refused('account-frozen');
        return this.problem(
          outcome,
          ErrorCode.AccountFrozen,
          `The ${String(data.side)}'s account is frozen: it can neither send nor receive money`,
          replayed,
        );
      case 'key-reused':
        // Not a stored answer: the problem is about this request, so it is rendered fresh.
        throw new ApiError(
          ErrorCode.IdempotencyKeyReused,
          'This Idempotency-Key was already used for a different request; use a new key for a new transfer',
        );
      case 'legacy':
        return legacy(data as { status: number; body: string }, replayed);
      default:
        return assertNever(code, outcome);
    }
  }

  private problem(
    outcome: StoredOutcome,
    code: ErrorCode,
    detail: string,
    replayed: boolean,
    members: Record<string, unknown> = {},
  ): IdempotentAnswer {
    const body = problemFromOccurrence(this.config.errorsBaseUrl, code, detail, {
      instance: outcome.instance ?? '',
      timestamp: outcome.at ?? '',
      requestId: outcome.requestId ?? '',
    });
    return {
      status: body.status,
      contentType: PROBLEM_TYPE,
      body: JSON.stringify({ ...body, ...members }),
      headers: {},
      replayed,
      problemType: code,
    };
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
    status: 201,
    contentType: JSON_TYPE,
    body: JSON.stringify(body),
    headers: { Location: `/api/v1/transactions/${fields.referenceId}` },
    replayed,
    referenceId: fields.referenceId,
  };
}

/** A row stored before outcomes existed holds the exact text it answered: replayed as it was. */
function legacy({ status, body }: { status: number; body: string }, replayed: boolean): IdempotentAnswer {
  const headers: Record<string, string> = {};
  const { referenceId, type } = status === 201 || status >= 400 ? readLegacyBody(body) : {};
  if (status === 201) headers.Location = `/api/v1/transactions/${referenceId}`;
  return {
    status,
    contentType: status < 400 ? JSON_TYPE : PROBLEM_TYPE,
    body,
    headers,
    replayed,
    problemType: status >= 400 ? type?.split('/').pop() : undefined,
    referenceId: status === 201 ? referenceId : undefined,
  };
}

/** The two fields a legacy body tells the observers; a body that is not JSON tells them nothing. */
function readLegacyBody(body: string): { referenceId?: string; type?: string } {
  try {
    return JSON.parse(body) as { referenceId?: string; type?: string };
  } catch {
    return {};
  }
}

function assertNever(code: never, outcome: StoredOutcome): never {
  throw new Error(`No rendering for movement outcome ${String(code)} (${JSON.stringify(outcome)})`);
}
