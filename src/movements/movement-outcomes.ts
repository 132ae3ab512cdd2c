import { ApiError } from '../common/errors/api-error';
import { ERROR_DESCRIPTORS, ErrorCode } from '../common/errors/error-code';
import { limitDetail, limitMember } from '../limits/limit-problem';

type OutcomeData = Record<string, unknown>;

/** A refusal a movement's SQL decides and stores: the problem it answers with, and its wording. */
export interface MovementRefusal {
  problem: ErrorCode;
  detail: (data: OutcomeData) => string;
  /** Members beside the problem's own (limit-exceeded's `limit`). */
  members?: (data: OutcomeData) => Record<string, unknown>;
}

/**
 * The codes the movements' SQL functions store (src/<module>/sql/*_apply.sql, transfer_refusal)
 * besides `completed`, each mapped onto the outcome vocabulary (error-code.ts). The SQL returns only
 * these codes and their data; status, title and wording are the service's. A test holds this table
 * and every code the .sql files can return to each other, both ways.
 */
export const MOVEMENT_REFUSALS = {
  'self-transfer': {
    problem: ErrorCode.SelfTransfer,
    detail: () => 'Sender and receiver must be different accounts',
  },
  'user-not-found': {
    problem: ErrorCode.UserNotFound,
    detail: (data) => `No user with UPI ID ${String(data.upiId)}`,
  },
  'insufficient-balance': {
    problem: ErrorCode.InsufficientBalance,
    detail: (data) =>
      `Available balance ${String(data.available)} is less than the required amount ${String(data.required)}`,
  },
  'payment-request-not-open': {
    problem: ErrorCode.PaymentRequestNotOpen,
    detail: (data) => `Payment request ${String(data.referenceId)} is ${String(data.status)}, not OPEN`,
  },
  'transaction-not-found': {
    problem: ErrorCode.TransactionNotFound,
    detail: (data) => `No transaction with reference ID ${String(data.referenceId)}`,
  },
  'not-transaction-receiver': {
    problem: ErrorCode.Forbidden,
    detail: () => 'Only the receiver of a transfer may reverse it',
  },
  'not-reversible': {
    problem: ErrorCode.NotReversible,
    detail: (data) =>
      data.type === undefined
        ? `Nothing to refund for ${String(data.requested)}: ${String(data.remaining)} of the transfer is not yet reversed`
        : `Only a TRANSFER can be reversed; this transaction is a ${String(data.type)}`,
  },
  'reversal-exceeds-remaining': {
    problem: ErrorCode.ReversalExceedsRemaining,
    detail: (data) =>
      `The reversal of ${String(data.requested)} exceeds the ${String(data.remaining)} that remains reversible`,
  },
  'hold-not-found': {
    problem: ErrorCode.HoldNotFound,
    detail: (data) => `No hold with reference ID ${String(data.referenceId)}`,
  },
  'not-hold-payee': {
    problem: ErrorCode.Forbidden,
    detail: () => 'Only the payee of a hold may capture or release it',
  },
  'hold-not-open': {
    problem: ErrorCode.HoldNotOpen,
    detail: (data) => `Hold ${String(data.referenceId)} is ${String(data.status)}, not HELD`,
  },
  'hold-exceeded': {
    problem: ErrorCode.HoldExceeded,
    detail: (data) =>
      `The capture of ${String(data.requested)} exceeds the ${String(data.remaining)} that remains on the hold`,
  },
  'limit-exceeded': { problem: ErrorCode.LimitExceeded, detail: limitDetail, members: limitMember },
  'account-frozen': {
    problem: ErrorCode.AccountFrozen,
    detail: (data) => `The ${String(data.side)}'s account is frozen: it can neither send nor receive money`,
  },
  // Disputes (src/disputes/sql): opening one, and every answer to it.
  'not-transaction-payer': {
    problem: ErrorCode.Forbidden,
    detail: () => 'Only the payer of a transfer may raise a dispute on it',
  },
  'dispute-window-closed': {
    problem: ErrorCode.DisputeWindowClosed,
    detail: (data) => `Disputes on this transfer could be raised until ${String(data.closedAt)}`,
  },
  'dispute-already-open': {
    problem: ErrorCode.DisputeAlreadyOpen,
    detail: () => 'This transfer already has a dispute in progress (OPEN or ESCALATED)',
  },
  'dispute-limit-exceeded': {
    problem: ErrorCode.DisputeLimitExceeded,
    detail: (data) =>
      data.cap === 'pair'
        ? `At most ${String(data.max)} disputes per payer and payee in a rolling 30 days (NPCI)`
        : `At most ${String(data.max)} disputes per payer in a rolling 30 days (NPCI)`,
  },
  'dispute-not-found': {
    problem: ErrorCode.DisputeNotFound,
    detail: (data) => `No dispute with reference ID ${String(data.referenceId)}`,
  },
  'not-dispute-party': {
    problem: ErrorCode.Forbidden,
    detail: (data) =>
      data.action === 'WITHDRAW' ? 'Only the payer may withdraw a dispute' : 'Only the payee may answer a dispute',
  },
  'dispute-status-conflict': {
    problem: ErrorCode.DisputeStatusConflict,
    detail: (data) => disputeConflictDetail(data),
  },
} as const satisfies Record<string, MovementRefusal>;

/** What a dispute's status allows: the payee answers an OPEN one before respondBy, an admin an ESCALATED one. */
function disputeConflictDetail(data: OutcomeData): string {
  const status = String(data.status);
  switch (data.action) {
    case 'WITHDRAW':
      return `The dispute is ${status}: it can no longer be withdrawn`;
    case 'REFUND':
    case 'DISMISS':
      return `The dispute is ${status}: an admin settles only an ESCALATED one`;
    default:
      return status === 'OPEN'
        ? `The payee's time to answer ended at ${String(data.respondBy)}: the dispute escalates`
        : `The dispute is ${status}: the payee answers only an OPEN one`;
  }
}

export type MovementRefusalCode = keyof typeof MOVEMENT_REFUSALS;

/** What a movement decides and stores under its key. */
export type MovementDecision = 'completed' | MovementRefusalCode;

/**
 * Codes a movement call answers but never stores: key-reused (a replay under another request's key,
 * answered fresh) and deferred (transfer_funds_batch only; it never leaves TransferBatcher).
 */
export const UNSTORED_CODES = ['key-reused', 'deferred'] as const;

export type MovementOutcomeCode = MovementDecision | (typeof UNSTORED_CODES)[number];

export const COMPLETED_STATUS = 201;

/** Every code a movement's SQL can return. */
export function movementOutcomeCodes(): MovementOutcomeCode[] {
  return ['completed', ...(Object.keys(MOVEMENT_REFUSALS) as MovementRefusalCode[]), ...UNSTORED_CODES];
}

const KNOWN_CODES: ReadonlySet<string> = new Set(movementOutcomeCodes());

export function isMovementOutcomeCode(code: string): code is MovementOutcomeCode {
  return KNOWN_CODES.has(code);
}

/**
 * A refused outcome of a movement run without a key (a hold's release, a dispute's answer) as the
 * error its route throws: the problem and wording a keyed movement's stored refusal answers with.
 */
export function refusalError(outcome: { code: string; data?: OutcomeData }): Error {
  const refusal: MovementRefusal | undefined = MOVEMENT_REFUSALS[outcome.code as MovementRefusalCode];
  if (!refusal) return new Error(`No rendering for movement outcome ${JSON.stringify(outcome)}`);
  const data = outcome.data ?? {};
  return new ApiError(refusal.problem, refusal.detail(data), { members: refusal.members?.(data) });
}

/** The HTTP status the service answers a stored decision with. */
export function responseStatusOf(code: MovementDecision): number {
  return code === 'completed' ? COMPLETED_STATUS : ERROR_DESCRIPTORS[MOVEMENT_REFUSALS[code].problem].status;
}

/**
 * outcome_response_status.sql, generated from this table: the status stored beside each outcome
 * in idempotency_keys.response_status, the operators' one-glance summary (a unit test holds the
 * file to this text; `UPDATE_SQL=1` rewrites it).
 */
export function outcomeResponseStatusSql(): string {
  const decisions: MovementDecision[] = ['completed', ...(Object.keys(MOVEMENT_REFUSALS) as MovementRefusalCode[])];
  const cases = decisions.map((code) => `    WHEN '${code}' THEN ${responseStatusOf(code)}`).join('\n');
  return `-- Generated from src/movements/movement-outcomes.ts (its unit test rewrites it with UPDATE_SQL=1):
-- the HTTP status the service answers each stored movement outcome with, kept beside the outcome in
-- idempotency_keys.response_status as the operators' one-glance summary. The movements themselves
-- return only codes and data; NULL for a code the service does not know.
CREATE OR REPLACE FUNCTION outcome_response_status(p_code text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE p_code
${cases}
  END
$$;
`;
}
