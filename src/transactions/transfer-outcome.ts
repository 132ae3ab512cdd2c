import { ERROR_DESCRIPTORS, ErrorCode } from '../common/errors/error-code';
import type { MovementResult, StoredOutcome } from '../idempotency/stored-outcome';

/** What transfer_funds decides for a transfer (and stores under its key). */
export type TransferDecision =
  | 'completed'
  | 'self-transfer'
  | 'user-not-found'
  | 'insufficient-balance'
  | 'payment-request-not-open'
  | 'limit-exceeded'
  | 'account-frozen';

/**
 * Every code a transfer's database call answers: a decision, or from a replay key-reused (another
 * request under the key) and legacy (a record stored before outcomes existed). deferred comes from
 * transfer_funds_batch only and never leaves TransferBatcher: the item runs alone instead.
 */
export type TransferOutcomeCode = TransferDecision | 'key-reused' | 'legacy' | 'deferred';

export interface TransferResult extends MovementResult {
  outcome: StoredOutcome & { code: TransferOutcomeCode };
}

/**
 * The HTTP status the service answers for each decision: the SQL stores it in
 * idempotency_keys.response_status as the operators' summary, but never chooses it.
 */
export const TRANSFER_RESPONSE_STATUS: Record<TransferDecision, number> = {
  completed: 201,
  'self-transfer': ERROR_DESCRIPTORS[ErrorCode.SelfTransfer].status,
  'user-not-found': ERROR_DESCRIPTORS[ErrorCode.UserNotFound].status,
  'insufficient-balance': ERROR_DESCRIPTORS[ErrorCode.InsufficientBalance].status,
  'payment-request-not-open': ERROR_DESCRIPTORS[ErrorCode.PaymentRequestNotOpen].status,
  'limit-exceeded': ERROR_DESCRIPTORS[ErrorCode.LimitExceeded].status,
  'account-frozen': ERROR_DESCRIPTORS[ErrorCode.AccountFrozen].status,
};
