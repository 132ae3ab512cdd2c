import { Inject, Injectable } from '@nestjs/common';
import type { ClientBase, Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import { AppConfig } from '../config/app-config';
import { ANY_ADDRESS, LOCKOUT_GROWTH, LOCKOUTS_BEFORE_PERMANENT, LONGEST_SHARED_LOCK_LEVEL } from './lockout-policy';

export type AttemptStart =
  { allowed: true } | { allowed: false; retryAfterSeconds: number; lockedNow: boolean; permanent: boolean };

/** What one login counts against: the UPI ID's account (null while unregistered) and the source. */
export interface AttemptKey {
  upiId: string;
  userId: string | null;
  source: string;
}

/** What Retry-After says for a permanent lock: ask again tomorrow (an operator must unlock it first). */
const PERMANENT_RETRY_AFTER_SECONDS = 86_400;

// The lock a source gets at its next lockout ($lock_count is the count before this one): an
// address the owner used is locked for good at its fifth; the shared one stops at its longest.
const LOCK_UNTIL = (lockCount: string) => `CASE
  WHEN $4 <> '${ANY_ADDRESS}' AND ${lockCount} + 1 >= ${LOCKOUTS_BEFORE_PERMANENT} THEN 'infinity'::timestamptz
  ELSE now() + make_interval(secs => $3 * power(${LOCKOUT_GROWTH}, least(${lockCount}, ${LONGEST_SHARED_LOCK_LEVEL})))
  END`;

// A row kept for another account (or before the owner registered) is not this owner's: start afresh.
const NOT_THEIRS = 'a.user_id IS DISTINCT FROM EXCLUDED.user_id';

/**
 * Consecutive failed PIN checks per UPI ID and source, in PostgreSQL so that restarts and every
 * instance share them. A source is a client address the owner has logged in from before, or
 * ANY_ADDRESS for all others: an attacker's failures lock the other addresses, not the owner's
 * own. Lockouts escalate and the level survives successes (lockout-policy.ts says how far). Each
 * row names the account it counts for, so failures sent before the owner registered are not
 * theirs. An attempt is counted before its PIN is checked, so parallel guesses cannot all slip
 * past the limit.
 */
@Injectable()
export class LoginAttemptsRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly config: AppConfig,
  ) {}

  /** What a login from this address counts against: the address itself if the owner logged in from it before. */
  async keyFor(upiId: string, userId: string | null, address: string): Promise<AttemptKey> {
    const { rows } = await this.pool.query<{ known: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM login_known_addresses WHERE upi_id = lower($1) AND address = $2) AS known`,
      [upiId, address],
    );
    return { upiId, userId, source: rows[0].known ? address : ANY_ADDRESS };
  }

  /** Counts one attempt atomically; refused while locked, or when it would exceed the limit (which locks). */
  async start(key: AttemptKey): Promise<AttemptStart> {
    const max = this.config.loginMaxFailedAttempts;
    const { rows } = await this.pool.query<{
      failed_count: number;
      retry_after: number | null;
      permanent: boolean | null;
    }>(
      `INSERT INTO login_attempts AS a (upi_id, source, user_id, failed_count, locked_until, updated_at)
       VALUES (lower($1), $4, $5, 1, NULL, now())
       ON CONFLICT (upi_id, source) DO UPDATE SET
         failed_count = CASE
           WHEN ${NOT_THEIRS} THEN 1
           WHEN a.locked_until > now() THEN a.failed_count
           WHEN a.locked_until <= now() THEN 1
           ELSE a.failed_count + 1 END,
         locked_until = CASE
           WHEN ${NOT_THEIRS} THEN NULL
           WHEN a.locked_until > now() THEN a.locked_until
           WHEN a.locked_until <= now() THEN NULL
           WHEN a.failed_count + 1 > $2 THEN ${LOCK_UNTIL('a.lock_count')}
           END,
         lock_count = CASE
           WHEN ${NOT_THEIRS} THEN 0
           WHEN a.locked_until IS NULL AND a.failed_count + 1 > $2 THEN a.lock_count + 1
           ELSE a.lock_count END,
         user_id = EXCLUDED.user_id,
         updated_at = now()
       RETURNING failed_count, locked_until = 'infinity' AS permanent,
                 CASE WHEN locked_until IS NOT NULL
                   THEN ceil(extract(epoch FROM least(locked_until, now() + interval '1 year') - now()))::int
                 END AS retry_after`,
      [key.upiId, max, this.config.loginLockoutSeconds, key.source, key.userId],
    );
    const { failed_count: count, retry_after: retryAfter, permanent } = rows[0];
    if (retryAfter === null) return { allowed: true };
    return {
      allowed: false,
      retryAfterSeconds: permanent ? PERMANENT_RETRY_AFTER_SECONDS : Math.max(1, retryAfter),
      lockedNow: count === max + 1,
      permanent: permanent === true,
    };
  }

  /** The attempt failed: reaching the limit locks the source, longer at each lockout. True when this call set the lock. */
  async failed(key: AttemptKey): Promise<boolean> {
    const { rowCount: locked } = await this.pool.query(
      `UPDATE login_attempts SET locked_until = ${LOCK_UNTIL('lock_count')}, lock_count = lock_count + 1,
              updated_at = now()
       WHERE upi_id = lower($1) AND source = $4 AND user_id IS NOT DISTINCT FROM $5
         AND locked_until IS NULL AND failed_count >= $2`,
      [key.upiId, this.config.loginMaxFailedAttempts, this.config.loginLockoutSeconds, key.source, key.userId],
    );
    return (locked ?? 0) > 0;
  }

  /** A success resets the source's count (not its lockout level) and makes the address known. */
  async succeeded(key: AttemptKey, address: string): Promise<void> {
    await this.pool.query(
      `WITH reset AS (
         UPDATE login_attempts SET failed_count = 0, updated_at = now()
         WHERE upi_id = lower($1) AND source = $2 AND lock_count > 0),
       cleared AS (DELETE FROM login_attempts WHERE upi_id = lower($1) AND source = $2 AND lock_count = 0)
       INSERT INTO login_known_addresses (upi_id, address) VALUES (lower($1), $3)
       ON CONFLICT (upi_id, address) DO UPDATE SET last_success_at = now()`,
      [key.upiId, key.source, address],
    );
  }

  /**
   * Rows whose last attempt is older than a day: kept while they carry a lockout level of the
   * registered account they count for (the bound must not reset), dropped otherwise. A row kept
   * for nobody (an unregistered UPI ID, a removed account) goes even while locked: no owner to protect.
   */
  async purgeStale(): Promise<number> {
    const { rowCount: deleted } = await this.pool.query(
      `DELETE FROM login_attempts a
       WHERE updated_at < now() - interval '1 day'
         AND (lock_count = 0 OR NOT EXISTS (SELECT 1 FROM users u WHERE u.id = a.user_id))`,
    );
    const { rowCount: forgotten } = await this.pool.query(
      `DELETE FROM login_known_addresses WHERE last_success_at < now() - interval '90 days'`,
    );
    return (deleted ?? 0) + (forgotten ?? 0);
  }

  /** Every lock and failure count of the UPI ID, on the admin CLI's connection (`npm run admin -- unlock`); how many rows went. */
  static async clearAll(db: ClientBase, upiId: string): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM login_attempts WHERE upi_id = lower($1)', [upiId]);
    return rowCount ?? 0;
  }
}
