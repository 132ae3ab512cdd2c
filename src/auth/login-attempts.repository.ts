import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import { AppConfig } from '../config/app-config';

export type AttemptStart =
  { allowed: true } | { allowed: false; retryAfterSeconds: number; lockedNow: boolean; permanent: boolean };

/** The lock after this many lockouts of one source never expires (an operator unlocks it). */
export const LOCKOUTS_BEFORE_PERMANENT = 5;
/** Each lockout of a source lasts this many times the one before (15 min, 1 h, 4 h, 16 h, then for ever). */
export const LOCKOUT_GROWTH = 4;
/** Where no client address has ever logged in successfully: one shared count for all of them. */
export const ANY_ADDRESS = '*';
/** What Retry-After says for a permanent lock: ask again tomorrow (an operator must unlock it first). */
const PERMANENT_RETRY_AFTER_SECONDS = 86_400;

// The lock a source gets at its n-th lockout ($lock_count is the count before this one).
const LOCK_UNTIL = (lockCount: string) => `CASE WHEN ${lockCount} + 1 >= ${LOCKOUTS_BEFORE_PERMANENT}
  THEN 'infinity'::timestamptz
  ELSE now() + make_interval(secs => $3 * power(${LOCKOUT_GROWTH}, ${lockCount})) END`;

/**
 * Consecutive failed PIN checks per UPI ID and source, in PostgreSQL so that restarts and every
 * instance share them. A source is a client address the owner has logged in from before, or
 * ANY_ADDRESS for all others: an attacker's failures lock the other addresses, not the owner's
 * own. Lockouts escalate and the level survives successes, so the guesses one source ever gets
 * are bounded (LOCKOUTS_BEFORE_PERMANENT x LOGIN_MAX_FAILED_ATTEMPTS). An attempt is counted
 * before its PIN is checked, so parallel guesses cannot all slip past the limit.
 */
@Injectable()
export class LoginAttemptsRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly config: AppConfig,
  ) {}

  /** The source a login from this address counts against: the address if the owner logged in from it before. */
  async sourceOf(upiId: string, address: string): Promise<string> {
    const { rows } = await this.pool.query<{ known: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM login_known_addresses WHERE upi_id = lower($1) AND address = $2) AS known`,
      [upiId, address],
    );
    return rows[0].known ? address : ANY_ADDRESS;
  }

  /** Counts one attempt atomically; refused while locked, or when it would exceed the limit (which locks). */
  async start(upiId: string, source: string): Promise<AttemptStart> {
    const max = this.config.loginMaxFailedAttempts;
    const { rows } = await this.pool.query<{
      failed_count: number;
      retry_after: number | null;
      permanent: boolean | null;
    }>(
      `INSERT INTO login_attempts AS a (upi_id, source, failed_count, locked_until, updated_at)
       VALUES (lower($1), $4, 1, NULL, now())
       ON CONFLICT (upi_id, source) DO UPDATE SET
         failed_count = CASE
           WHEN a.locked_until > now() THEN a.failed_count
           WHEN a.locked_until <= now() THEN 1
           ELSE a.failed_count + 1 END,
         locked_until = CASE
           WHEN a.locked_until > now() THEN a.locked_until
           WHEN a.locked_until <= now() THEN NULL
           WHEN a.failed_count + 1 > $2 THEN ${LOCK_UNTIL('a.lock_count')}
           END,
         lock_count = CASE
           WHEN a.locked_until IS NULL AND a.failed_count + 1 > $2 THEN a.lock_count + 1 ELSE a.lock_count END,
         updated_at = now()
       RETURNING failed_count, locked_until = 'infinity' AS permanent,
                 CASE WHEN locked_until IS NOT NULL
                   THEN ceil(extract(epoch FROM least(locked_until, now() + interval '1 year') - now()))::int
                 END AS retry_after`,
      [upiId, max, this.config.loginLockoutSeconds, source],
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
  async failed(upiId: string, source: string): Promise<boolean> {
    const { rowCount: locked } = await this.pool.query(
      `UPDATE login_attempts SET locked_until = ${LOCK_UNTIL('lock_count')}, lock_count = lock_count + 1,
              updated_at = now()
       WHERE upi_id = lower($1) AND source = $4 AND locked_until IS NULL AND failed_count >= $2`,
      [upiId, this.config.loginMaxFailedAttempts, this.config.loginLockoutSeconds, source],
    );
    return (locked ?? 0) > 0;
  }

  /** A success resets the source's count (not its lockout level) and makes the address known. */
  async succeeded(upiId: string, source: string, address: string): Promise<void> {
    await this.pool.query(
      `WITH reset AS (
         UPDATE login_attempts SET failed_count = 0, updated_at = now()
         WHERE upi_id = lower($1) AND source = $2 AND lock_count > 0),
       cleared AS (DELETE FROM login_attempts WHERE upi_id = lower($1) AND source = $2 AND lock_count = 0)
       INSERT INTO login_known_addresses (upi_id, address) VALUES (lower($1), $3)
       ON CONFLICT (upi_id, address) DO UPDATE SET last_success_at = now()`,
      [upiId, source, address],
    );
  }

  /**
   * Rows whose lock is over and whose last attempt is older than a day: kept while they carry a
   * lockout level of a registered user (the bound must not reset), dropped otherwise.
   */
  async purgeStale(): Promise<number> {
    const { rowCount: deleted } = await this.pool.query(
      `DELETE FROM login_attempts a
       WHERE updated_at < now() - interval '1 day' AND (locked_until IS NULL OR locked_until < now())
         AND (lock_count = 0 OR NOT EXISTS (SELECT 1 FROM users u WHERE lower(u.upi_id) = a.upi_id))`,
    );
    const { rowCount: forgotten } = await this.pool.query(
      `DELETE FROM login_known_addresses WHERE last_success_at < now() - interval '90 days'`,
    );
    return (deleted ?? 0) + (forgotten ?? 0);
  }
}
