import { hash } from 'node:crypto';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** The key's rule, which the check below and the API document's header schema both state. */
export const IDEMPOTENCY_KEY_SCHEMA = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_.:-]+$' };
const KEY_PATTERN = new RegExp(IDEMPOTENCY_KEY_SCHEMA.pattern);

/** The Idempotency-Key header: required, 1-255 characters of [A-Za-z0-9_.:-] (400 otherwise). */
export function readIdempotencyKey(header: string | string[] | undefined): string {
  if (header === undefined || header === '') {
    throw new ApiError(ErrorCode.IdempotencyKeyMissing, `The ${IDEMPOTENCY_KEY_HEADER} header is required`);
  }
  if (typeof header !== 'string' || header.length > IDEMPOTENCY_KEY_SCHEMA.maxLength || !KEY_PATTERN.test(header)) {
    throw new ApiError(
      ErrorCode.IdempotencyKeyInvalid,
      `The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to 255 characters of letters, digits, "_", ".", ":" or "-"`,
    );
  }
  return header;
}

/** SHA-256 of a canonical form, so equal requests hash equally whatever their key order or number format. */
export function requestHash(canonical: Record<string, string | null>): string {
  const ordered = Object.keys(canonical)
    .sort()
    .map((name) => [name, canonical[name]]);
  // One-shot crypto.hash: the same digest without a Hash object per request.
  return hash('sha256', JSON.stringify(ordered));
}
