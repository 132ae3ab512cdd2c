import type { MovementResult, StoredOutcome } from '../idempotency/stored-outcome';
import type { MovementDecision } from '../movements/movement-outcomes';

/** What transfer_funds (and transfer_funds_batch) decides for a transfer and stores under its key. */
export type TransferDecision = Extract<
  MovementDecision,
  | 'completed'
  | 'self-transfer'
  | 'user-not-found'
  | 'insufficient-balance'
  | 'payment-request-not-open'
  | 'limit-exceeded'
  | 'account-frozen'
>;

/**
 * Every code a transfer's database call answers: a decision, or key-reused from a replay (another
 * request under the key). deferred comes from transfer_funds_batch only and never leaves
 * TransferBatcher: the item runs alone instead.
 */
export type TransferOutcomeCode = TransferDecision | 'key-reused' | 'deferred';

export interface TransferResult extends MovementResult {
  outcome: StoredOutcome & { code: TransferOutcomeCode };
}
