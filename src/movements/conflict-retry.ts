import { ExponentialBackoff, handleWhen, retry, type RetryPolicy } from 'cockatiel';
import { PgErrorCode, pgErrorCode } from '../common/errors/postgres-errors';

/**
 * A money movement is one statement in its own transaction: when PostgreSQL rolls it back as a
 * deadlock victim (40P01) or a serialization failure (40001), nothing of it was written, and the
 * same call, run again, decides afresh. Accounts are locked in one global order, so a deadlock
 * should never involve two movements; this is the net for anything else taking locks.
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = pgErrorCode(error);
  return code === PgErrorCode.DeadlockDetected || code === PgErrorCode.SerializationFailure;
}

/** Retries after the first attempt; then the conflict reaches the client as a 409 to retry. */
export const CONFLICT_RETRIES = 3;

/**
 * Bounded retries of a conflict, after short delays with decorrelated jitter (cockatiel's
 * default generator), so two victims of one conflict do not meet again at once.
 */
export function conflictRetryPolicy(retries = CONFLICT_RETRIES): RetryPolicy {
  return retry(handleWhen(isTransactionConflict), {
    maxAttempts: retries,
    backoff: new ExponentialBackoff({ initialDelay: 5, maxDelay: 100 }),
  });
}
