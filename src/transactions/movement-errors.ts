import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { PgErrorCode, pgErrorCode } from '../common/errors/postgres-errors';

/**
 * What a movement's database failure means to the client: a twin request still holding the key
 * is 409 (retry shortly), a balance beyond numeric(19,4) is 422. Anything else stays unexpected.
 */
export function translateMovementError(error: unknown): unknown {
  const code = pgErrorCode(error);
  if (code === PgErrorCode.LockNotAvailable) {
    return new ApiError(
      ErrorCode.IdempotencyKeyInFlight,
      'A request with this Idempotency-Key is still being processed; retry shortly',
    );
  }
  if (code === PgErrorCode.NumericValueOutOfRange) {
    return new ApiError(ErrorCode.ValidationFailed, 'A balance would exceed the largest supported amount', {
      errors: { amount: 'would overflow a balance' },
    });
  }
  return error;
}
