/** Every problem the API can answer with, and how each maps to HTTP. One table, checked exhaustively. */
export enum ErrorCode {
  InvalidRequest = 'invalid-request',
  ValidationFailed = 'validation-failed',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden-operation',
  NotFound = 'not-found',
  UserNotFound = 'user-not-found',
  TransactionNotFound = 'transaction-not-found',
  DuplicateUpiId = 'duplicate-upi-id',
  InvalidUpiId = 'invalid-upi-id',
  SelfTransfer = 'self-transfer',
  InsufficientBalance = 'insufficient-balance',
  IdempotencyKeyMissing = 'idempotency-key-missing',
  IdempotencyKeyInvalid = 'idempotency-key-invalid',
  IdempotencyKeyReused = 'idempotency-key-reused',
  IdempotencyKeyInFlight = 'idempotency-key-in-flight',
  Conflict = 'conflict',
  MethodNotAllowed = 'method-not-allowed',
  UnsupportedMediaType = 'unsupported-media-type',
  PayloadTooLarge = 'payload-too-large',
  RateLimitExceeded = 'rate-limit-exceeded',
  LoginLocked = 'login-locked',
  ServiceUnavailable = 'service-unavailable',
  FeatureDisabled = 'feature-disabled',
  InternalError = 'internal-error',
}

export interface ErrorDescriptor {
  status: number;
  title: string;
}

export const ERROR_DESCRIPTORS: Record<ErrorCode, ErrorDescriptor> = {
  [ErrorCode.InvalidRequest]: { status: 400, title: 'Invalid Request Content' },
  [ErrorCode.ValidationFailed]: { status: 422, title: 'Validation Failed' },
  [ErrorCode.Unauthorized]: { status: 401, title: 'Unauthorized' },
  [ErrorCode.Forbidden]: { status: 403, title: 'Forbidden Operation' },
  [ErrorCode.NotFound]: { status: 404, title: 'Not Found' },
  [ErrorCode.UserNotFound]: { status: 404, title: 'User Not Found' },
  [ErrorCode.TransactionNotFound]: { status: 404, title: 'Transaction Not Found' },
  [ErrorCode.DuplicateUpiId]: { status: 409, title: 'UPI ID Already Registered' },
  [ErrorCode.InvalidUpiId]: { status: 422, title: 'Invalid UPI ID' },
  [ErrorCode.SelfTransfer]: { status: 400, title: 'Self Transfer Not Allowed' },
  [ErrorCode.InsufficientBalance]: { status: 422, title: 'Insufficient Balance' },
  [ErrorCode.IdempotencyKeyMissing]: { status: 400, title: 'Idempotency Key Missing' },
  [ErrorCode.IdempotencyKeyInvalid]: { status: 400, title: 'Idempotency Key Invalid' },
  [ErrorCode.IdempotencyKeyReused]: { status: 400, title: 'Idempotency Key Reused' },
  [ErrorCode.IdempotencyKeyInFlight]: { status: 409, title: 'Idempotency Key In Flight' },
  [ErrorCode.Conflict]: { status: 409, title: 'Conflict' },
  [ErrorCode.MethodNotAllowed]: { status: 405, title: 'Method Not Allowed' },
  [ErrorCode.UnsupportedMediaType]: { status: 415, title: 'Unsupported Media Type' },
  [ErrorCode.PayloadTooLarge]: { status: 413, title: 'Payload Too Large' },
  [ErrorCode.RateLimitExceeded]: { status: 429, title: 'Rate Limit Exceeded' },
  [ErrorCode.LoginLocked]: { status: 429, title: 'Login Locked' },
  [ErrorCode.ServiceUnavailable]: { status: 503, title: 'Service Unavailable' },
  [ErrorCode.FeatureDisabled]: { status: 503, title: 'Feature Disabled' },
  [ErrorCode.InternalError]: { status: 500, title: 'Internal Server Error' },
};
