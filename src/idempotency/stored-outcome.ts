/*
 * The words of a money movement, one meaning each:
 * - decision (MovementDecision, movement-outcomes.ts): what a movement's SQL rules decide, a code and its data;
 * - outcome (StoredOutcome): the decision as stored under the idempotency key, with what the first
 *   answer fixed, so a replay renders the same bytes;
 * - result (MovementResult): an outcome and whether it was replayed, as the database call returns it;
 * - answer (IdempotentAnswer): the outcome rendered as the HTTP response;
 * - response labels (src/common/response-labels.ts): what the observers (metrics, logs) learn of it.
 */

/**
 * What a money movement answered, as data: a code, its arguments, and what the first answer
 * fixed (its time, request id and path), so that a replay renders the same bytes, even after a
 * restart. Written by the movement's SQL function, rendered by the owning module.
 */
export interface StoredOutcome {
  code: string;
  data?: Record<string, unknown>;
  at?: string;
  requestId?: string;
  instance?: string;
  /** A transfer that pays a payment request (src/payment-requests/) names it. */
  paymentRequestReferenceId?: string;
}

/** What the first answer fixes besides the outcome itself; passed to the SQL function to store. */
export interface AnswerContext {
  requestId: string;
  instance: string;
  /** A payment of a payment request: the SQL marks that request PAID in the transfer's transaction. */
  paymentRequestReferenceId?: string;
}

export interface MovementResult {
  outcome: StoredOutcome;
  /** True when the outcome was stored by an earlier request with the same key. */
  replayed: boolean;
}

/** An HTTP answer already rendered: MovementInterceptor sends it as is. */
export interface IdempotentAnswer {
  status: number;
  contentType: string;
  body: string;
  headers: Record<string, string>;
  replayed: boolean;
  /** For the observers (response-labels.ts): the problem's type slug, or the transaction's referenceId. */
  problemType?: string;
  /** A problem's detail, for callers inside the service (a scheduled run records it), never parsed back. */
  problemDetail?: string;
  referenceId?: string;
}

export function isIdempotentAnswer(value: unknown): value is IdempotentAnswer {
  const answer = value as Partial<IdempotentAnswer> | null;
  return typeof answer?.status === 'number' && typeof answer.body === 'string' && typeof answer.replayed === 'boolean';
}
