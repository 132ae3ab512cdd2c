import { ERROR_DESCRIPTORS, ErrorCode } from '../common/errors/error-code';

/** A documented problem body before the document fixes its `type` base URL and its `instance`. */
export interface ProblemExample {
  slug: string;
  title: string;
  status: number;
  detail: string;
  errors?: Record<string, string>;
  /** limit-exceeded only (src/limits). */
  limit?: { name: string; max: number; used: number; remaining: number; resetsAt: string };
}

/** What a status means when an operation does not name the exact problems it answers with. */
export const DEFAULT_PROBLEMS: Record<number, string[]> = {
  400: [ErrorCode.InvalidRequest],
  401: [ErrorCode.Unauthorized],
  403: [ErrorCode.Forbidden],
  404: [ErrorCode.NotFound],
  405: [ErrorCode.MethodNotAllowed],
  409: [ErrorCode.Conflict],
  413: [ErrorCode.PayloadTooLarge],
  414: [ErrorCode.UriTooLong],
  415: [ErrorCode.UnsupportedMediaType],
  422: [ErrorCode.ValidationFailed],
  429: [ErrorCode.RateLimitExceeded],
  500: [ErrorCode.InternalError],
  503: [ErrorCode.ServiceUnavailable],
};

/** A detail as the service really writes it, per problem; a code missing here documents its title. */
const DETAILS: Partial<Record<string, Omit<ProblemExample, 'slug' | 'title' | 'status'>>> = {
  [ErrorCode.InvalidRequest]: { detail: 'Malformed JSON request body' },
  [ErrorCode.ValidationFailed]: {
    detail: 'Request validation failed',
    errors: { amount: 'amount must be at least 0.01' },
  },
  [ErrorCode.Unauthorized]: { detail: 'Missing or invalid bearer token' },
  [ErrorCode.Forbidden]: { detail: 'You may only act on your own account' },
  [ErrorCode.NotFound]: { detail: 'The requested resource does not exist' },
  [ErrorCode.UserNotFound]: { detail: 'No user with UPI ID bob@okbank' },
  [ErrorCode.TransactionNotFound]: {
    detail: 'No transaction with reference ID 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b',
  },
  [ErrorCode.PaymentRequestNotFound]: {
    detail: 'No payment request with reference ID 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b',
  },
  [ErrorCode.PaymentRequestNotOpen]: {
    detail: 'Payment request 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b is PAID, not OPEN',
  },
  [ErrorCode.DuplicateUpiId]: { detail: 'UPI ID alice@okbank is already registered' },
  [ErrorCode.InvalidUpiId]: { detail: 'UPI ID alice@okbank was rejected by the verification provider' },
  [ErrorCode.SelfTransfer]: { detail: 'Sender and receiver must be different accounts' },
  [ErrorCode.InsufficientBalance]: {
    detail: 'Available balance 50.0000 is less than the required amount 100.5000',
  },
  [ErrorCode.ReversalExceedsRemaining]: {
    detail: 'The reversal of 60.0000 exceeds the 40.2500 that remains reversible',
  },
  [ErrorCode.LimitExceeded]: {
    detail:
      'This transfer would exceed the daily amount limit of 100000.0000 (used 65000.0000, remaining 35000.0000); ' +
      'it resets at 2026-11-24T18:30:00.000Z',
    limit: { name: 'daily-amount', max: 100000, used: 65000, remaining: 35000, resetsAt: '2026-11-24T18:30:00.000Z' },
  },
  [ErrorCode.AccountFrozen]: {
    detail: "The sender's account is frozen: it can neither send nor receive money",
  },
  [ErrorCode.NotReversible]: { detail: 'Only a TRANSFER can be reversed; this transaction is a DEPOSIT' },
  [ErrorCode.IdempotencyKeyMissing]: { detail: 'The Idempotency-Key header is required' },
  [ErrorCode.IdempotencyKeyInvalid]: {
    detail: 'Idempotency-Key must be 1 to 255 characters of A-Z a-z 0-9 _ . : -',
  },
  [ErrorCode.IdempotencyKeyReused]: {
    detail: 'This Idempotency-Key was already used for a different request; use a new key for a new transfer',
  },
  [ErrorCode.IdempotencyKeyInFlight]: {
    detail: 'A request with this Idempotency-Key is still being processed; retry shortly',
  },
  [ErrorCode.Conflict]: { detail: 'The resource was changed concurrently; retry' },
  [ErrorCode.MethodNotAllowed]: { detail: 'Method DELETE is not allowed here' },
  [ErrorCode.UnsupportedMediaType]: { detail: 'Content-Type must be application/json' },
  [ErrorCode.PayloadTooLarge]: { detail: 'Request body exceeds 65536 bytes' },
  [ErrorCode.UriTooLong]: { detail: 'The request URI is too long' },
  [ErrorCode.RateLimitExceeded]: { detail: 'Too many requests; retry after 1 second' },
  [ErrorCode.LoginLocked]: { detail: 'Too many failed logins for this UPI ID; try again later' },
  [ErrorCode.ServiceUnavailable]: { detail: 'UPI verification is unavailable: circuit open; retry later' },
  [ErrorCode.FeatureDisabled]: { detail: 'Spend insights are turned off on this service (INSIGHTS_ENABLED)' },
  [ErrorCode.InternalError]: { detail: 'An unexpected error occurred' },
};

/** The documented example of one problem code, known to ERROR_DESCRIPTORS. */
export function problemExample(code: string): ProblemExample {
  const descriptor = (ERROR_DESCRIPTORS as Record<string, { status: number; title: string } | undefined>)[code];
  if (!descriptor) throw new Error(`Unknown problem code ${code}`);
  const detail = DETAILS[code] ?? { detail: descriptor.title };
  return { slug: code, title: descriptor.title, status: descriptor.status, ...detail };
}

/** Every problem slug the service can answer with. */
export function problemSlugs(): string[] {
  return Object.keys(ERROR_DESCRIPTORS);
}
