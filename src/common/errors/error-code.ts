/**
 * The outcome vocabulary: every problem the API can answer with, its HTTP status, title and the
 * example the API document shows. One table, checked exhaustively; the codes a money movement's SQL
 * stores map onto it in src/movements/movement-outcomes.ts.
 */
export enum ErrorCode {
  InvalidRequest = 'invalid-request',
  ValidationFailed = 'validation-failed',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden-operation',
  NotFound = 'not-found',
  UserNotFound = 'user-not-found',
  TransactionNotFound = 'transaction-not-found',
  WebhookNotFound = 'webhook-not-found',
  WebhookDeliveryNotFound = 'webhook-delivery-not-found',
  PaymentRequestNotFound = 'payment-request-not-found',
  PaymentRequestNotOpen = 'payment-request-not-open',
  PaymentRequestLimitReached = 'payment-request-limit-reached',
  HoldNotFound = 'hold-not-found',
  HoldNotOpen = 'hold-not-open',
  HoldExceeded = 'hold-exceeded',
  DisputeNotFound = 'dispute-not-found',
  DisputeWindowClosed = 'dispute-window-closed',
  DisputeAlreadyOpen = 'dispute-already-open',
  DisputeLimitExceeded = 'dispute-limit-exceeded',
  DisputeStatusConflict = 'dispute-status-conflict',
  DuplicateUpiId = 'duplicate-upi-id',
  InvalidUpiId = 'invalid-upi-id',
  SelfTransfer = 'self-transfer',
  InsufficientBalance = 'insufficient-balance',
  ReversalExceedsRemaining = 'reversal-exceeds-remaining',
  NotReversible = 'not-reversible',
  LimitExceeded = 'limit-exceeded',
  AccountFrozen = 'account-frozen',
  HistoryArchived = 'history-archived',
  IdempotencyKeyMissing = 'idempotency-key-missing',
  IdempotencyKeyInvalid = 'idempotency-key-invalid',
  IdempotencyKeyReused = 'idempotency-key-reused',
  IdempotencyKeyInFlight = 'idempotency-key-in-flight',
  Conflict = 'conflict',
  MethodNotAllowed = 'method-not-allowed',
  UnsupportedMediaType = 'unsupported-media-type',
  PayloadTooLarge = 'payload-too-large',
  UriTooLong = 'uri-too-long',
  HeaderFieldsTooLarge = 'header-fields-too-large',
  RateLimitExceeded = 'rate-limit-exceeded',
  LoginLocked = 'login-locked',
  ServiceUnavailable = 'service-unavailable',
  FeatureDisabled = 'feature-disabled',
  InternalError = 'internal-error',
}

/** A documented problem's own members, as the service really writes them. */
export interface ProblemExampleFields {
  detail: string;
  errors?: Record<string, string>;
  /** limit-exceeded only (src/limits). */
  limit?: { name: string; max: number; used: number; remaining: number; resetsAt: string };
  /** history-archived only (src/statements): the first month a statement can reach, YYYY-MM. */
  firstLiveMonth?: string;
}

export interface ErrorDescriptor {
  status: number;
  title: string;
  /** What the API document shows; a code without one documents its title as the detail. */
  example?: ProblemExampleFields;
}

export const ERROR_DESCRIPTORS: Record<ErrorCode, ErrorDescriptor> = {
  [ErrorCode.InvalidRequest]: {
    status: 400,
    title: 'Invalid Request Content',
    example: { detail: 'Malformed JSON request body' },
  },
  [ErrorCode.ValidationFailed]: {
    status: 422,
    title: 'Validation Failed',
    example: {
      detail: 'Request validation failed',
      errors: { amount: 'amount must be at least 0.01' },
    },
  },
  [ErrorCode.Unauthorized]: {
    status: 401,
    title: 'Unauthorized',
    example: { detail: 'Missing or invalid bearer token' },
  },
  [ErrorCode.Forbidden]: {
    status: 403,
    title: 'Forbidden Operation',
    example: { detail: 'You may only act on your own account' },
  },
  [ErrorCode.NotFound]: {
    status: 404,
    title: 'Not Found',
    example: { detail: 'The requested resource does not exist' },
  },
  [ErrorCode.UserNotFound]: {
    status: 404,
    title: 'User Not Found',
    example: { detail: 'No user with UPI ID bob@okbank' },
  },
  [ErrorCode.TransactionNotFound]: {
    status: 404,
    title: 'Transaction Not Found',
    example: {
      detail: 'No transaction with reference ID 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b',
    },
  },
  [ErrorCode.WebhookNotFound]: { status: 404, title: 'Webhook Endpoint Not Found' },
  [ErrorCode.WebhookDeliveryNotFound]: { status: 404, title: 'Webhook Delivery Not Found' },
  [ErrorCode.PaymentRequestNotFound]: {
    status: 404,
    title: 'Payment Request Not Found',
    example: {
      detail: 'No payment request with reference ID 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b',
    },
  },
  [ErrorCode.PaymentRequestNotOpen]: {
    status: 409,
    title: 'Payment Request Not Open',
    example: {
      detail: 'Payment request 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b is PAID, not OPEN',
    },
  },
  [ErrorCode.HoldNotFound]: {
    status: 404,
    title: 'Hold Not Found',
    example: { detail: 'No hold with reference ID 7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f' },
  },
  [ErrorCode.HoldNotOpen]: {
    status: 409,
    title: 'Hold Not Open',
    example: { detail: 'Hold 7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f is CAPTURED, not HELD' },
  },
  [ErrorCode.HoldExceeded]: {
    status: 422,
    title: 'Hold Exceeded',
    example: { detail: 'The capture of 60.0000 exceeds the 40.0000 that remains on the hold' },
  },
  [ErrorCode.PaymentRequestLimitReached]: {
    status: 422,
    title: 'Payment Request Limit Reached',
    example: {
      detail:
        'You have 100 open payment requests, the most allowed: cancel one, or wait until one is paid ' +
        'or expires (the next at 2026-11-22T10:30:00.000Z)',
    },
  },
  [ErrorCode.DuplicateUpiId]: {
    status: 409,
    title: 'UPI ID Already Registered',
    example: { detail: 'UPI ID alice@okbank is already registered' },
  },
  [ErrorCode.InvalidUpiId]: {
    status: 422,
    title: 'Invalid UPI ID',
    example: { detail: 'UPI ID alice@okbank was rejected by the verification provider' },
  },
  [ErrorCode.SelfTransfer]: {
    status: 400,
    title: 'Self Transfer Not Allowed',
    example: { detail: 'Sender and receiver must be different accounts' },
  },
  [ErrorCode.InsufficientBalance]: {
    status: 422,
    title: 'Insufficient Balance',
    example: {
      detail: 'Available balance 50.0000 is less than the required amount 100.5000',
    },
  },
  [ErrorCode.ReversalExceedsRemaining]: {
    status: 422,
    title: 'Reversal Exceeds Remaining Amount',
    example: {
      detail: 'The reversal of 60.0000 exceeds the 40.2500 that remains reversible',
    },
  },
  [ErrorCode.DisputeNotFound]: {
    status: 404,
    title: 'Dispute Not Found',
    example: { detail: 'No dispute with reference ID 0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b' },
  },
  [ErrorCode.DisputeWindowClosed]: {
    status: 422,
    title: 'Dispute Window Closed',
    example: { detail: 'Disputes on this transfer could be raised until 2026-11-22T10:30:00.000Z' },
  },
  [ErrorCode.DisputeAlreadyOpen]: {
    status: 409,
    title: 'Dispute Already Open',
    example: { detail: 'This transfer already has a dispute in progress (OPEN or ESCALATED)' },
  },
  [ErrorCode.DisputeLimitExceeded]: {
    status: 422,
    title: 'Dispute Limit Exceeded',
    example: { detail: 'At most 5 disputes per payer and payee in a rolling 30 days (NPCI)' },
  },
  [ErrorCode.DisputeStatusConflict]: {
    status: 409,
    title: 'Dispute Status Conflict',
    example: { detail: 'The dispute is ESCALATED: ACCEPT needs it OPEN, before respondBy 2026-11-24T10:30:00.000Z' },
  },
  [ErrorCode.NotReversible]: {
    status: 422,
    title: 'Transaction Not Reversible',
    example: { detail: 'Only a TRANSFER can be reversed; this transaction is a DEPOSIT' },
  },
  [ErrorCode.LimitExceeded]: {
    status: 422,
    title: 'Limit Exceeded',
    example: {
      detail:
        'This transfer would exceed the daily amount limit of 100000.0000 (used 65000.0000, remaining 35000.0000); ' +
        'it resets at 2026-11-24T18:30:00.000Z',
      limit: { name: 'daily-amount', max: 100000, used: 65000, remaining: 35000, resetsAt: '2026-11-24T18:30:00.000Z' },
    },
  },
  [ErrorCode.HistoryArchived]: {
    status: 422,
    title: 'History Archived',
    example: {
      detail: 'The period reaches archived history; statements start from 2018-01',
      firstLiveMonth: '2018-01',
    },
  },
  [ErrorCode.AccountFrozen]: {
    status: 422,
    title: 'Account Frozen',
    example: {
      detail: "The sender's account is frozen: it can neither send nor receive money",
    },
  },
  [ErrorCode.IdempotencyKeyMissing]: {
    status: 400,
    title: 'Idempotency Key Missing',
    example: { detail: 'The Idempotency-Key header is required' },
  },
  [ErrorCode.IdempotencyKeyInvalid]: {
    status: 400,
    title: 'Idempotency Key Invalid',
    example: {
      detail: 'Idempotency-Key must be 1 to 255 characters of A-Z a-z 0-9 _ . : -',
    },
  },
  [ErrorCode.IdempotencyKeyReused]: {
    status: 400,
    title: 'Idempotency Key Reused',
    example: {
      detail: 'This Idempotency-Key was already used for a different request; use a new key for a new transfer',
    },
  },
  [ErrorCode.IdempotencyKeyInFlight]: {
    status: 409,
    title: 'Idempotency Key In Flight',
    example: {
      detail: 'A request with this Idempotency-Key is still being processed; retry shortly',
    },
  },
  [ErrorCode.Conflict]: {
    status: 409,
    title: 'Conflict',
    example: { detail: 'The resource was changed concurrently; retry' },
  },
  [ErrorCode.MethodNotAllowed]: {
    status: 405,
    title: 'Method Not Allowed',
    example: { detail: 'Method DELETE is not allowed here' },
  },
  [ErrorCode.UnsupportedMediaType]: {
    status: 415,
    title: 'Unsupported Media Type',
    example: { detail: 'Content-Type must be application/json' },
  },
  [ErrorCode.PayloadTooLarge]: {
    status: 413,
    title: 'Payload Too Large',
    example: { detail: 'Request body exceeds 65536 bytes' },
  },
  [ErrorCode.UriTooLong]: { status: 414, title: 'URI Too Long', example: { detail: 'The request URI is too long' } },
  [ErrorCode.HeaderFieldsTooLarge]: { status: 431, title: 'Request Header Fields Too Large' },
  [ErrorCode.RateLimitExceeded]: {
    status: 429,
    title: 'Rate Limit Exceeded',
    example: { detail: 'Too many requests; retry after 1 second' },
  },
  [ErrorCode.LoginLocked]: {
    status: 429,
    title: 'Login Locked',
    example: { detail: 'Too many failed logins for this UPI ID; try again later' },
  },
  [ErrorCode.ServiceUnavailable]: {
    status: 503,
    title: 'Service Unavailable',
    example: { detail: 'UPI verification is unavailable: circuit open; retry later' },
  },
  [ErrorCode.FeatureDisabled]: {
    status: 503,
    title: 'Feature Disabled',
    example: { detail: 'Spend insights are turned off on this service (INSIGHTS_ENABLED)' },
  },
  [ErrorCode.InternalError]: {
    status: 500,
    title: 'Internal Server Error',
    example: { detail: 'An unexpected error occurred' },
  },
};
