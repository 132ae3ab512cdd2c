/**
 * How login lockouts grow. A source is an address the owner has logged in from before (its own
 * count), or ANY_ADDRESS: every other address together. The SQL in login-attempts.repository.ts
 * is built from these constants; the functions here state the bounds that follow from them.
 */

/** Where no client address has ever logged in successfully: one shared count for all of them. */
export const ANY_ADDRESS = '*';
/** Each lockout of a source lasts this many times the one before (15 min, 1 h, 4 h, 16 h). */
export const LOCKOUT_GROWTH = 4;
/** An address the owner used is locked for good at its fifth lockout (an operator unlocks it). */
export const LOCKOUTS_BEFORE_PERMANENT = 5;
/**
 * The shared source stops growing at the last timed lock (64 x LOGIN_LOCKOUT_SECONDS) and is
 * never locked for good: anyone can fail from anywhere, so a permanent lock there would let a
 * stranger lock the owner out of every new phone and network.
 */
export const LONGEST_SHARED_LOCK_LEVEL = LOCKOUTS_BEFORE_PERMANENT - 2;

/** The shared source's lock after `lockCount` earlier lockouts. */
export function sharedLockSeconds(lockCount: number, lockoutSeconds: number): number {
  return lockoutSeconds * LOCKOUT_GROWTH ** Math.min(lockCount, LONGEST_SHARED_LOCK_LEVEL);
}

/** The longest the owner, on an address new to them, waits after the attacker stops. */
export function longestSharedLockSeconds(lockoutSeconds: number): number {
  return sharedLockSeconds(LONGEST_SHARED_LOCK_LEVEL, lockoutSeconds);
}

/**
 * The most PIN checks of one UPI ID from addresses its owner never used within `windowSeconds`
 * (not counting the owner's own successes, each of which starts a new count). A batch of
 * `maxFailedAttempts`, a lock, the next batch; locks never shrink, so the busiest window is the
 * one that starts with the first batch.
 */
export function mostGuessesFromUnknownAddresses(
  windowSeconds: number,
  maxFailedAttempts: number,
  lockoutSeconds: number,
): number {
  let batches = 0;
  for (let startsAt = 0; startsAt <= windowSeconds; batches += 1) {
    startsAt += sharedLockSeconds(batches, lockoutSeconds);
  }
  return batches * maxFailedAttempts;
}
