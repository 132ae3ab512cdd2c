import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

export interface FailureOutcome {
  /** True when this failure is the one that locked the UPI ID. */
  lockedNow: boolean;
}

/**
 * Consecutive wrong PINs per UPI ID, in PostgreSQL so that restarts and every instance
 * share them. One row per UPI ID that has failed since its last success.
 */
@Injectable()
export class LoginAttemptsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Seconds until the lock ends (0: not locked), and whether a row exists to clear on success. */
  async lockState(upiId: string): Promise<{ retryAfterSeconds: number; hasFailures: boolean }> {
    const rows = (await this.dataSource.query(
      `SELECT ceil(extract(epoch FROM locked_until - now()))::int AS retry_after
       FROM login_attempts WHERE upi_id = lower($1)`,
      [upiId],
    )) as { retry_after: number | null }[];
    if (rows.length === 0) return { retryAfterSeconds: 0, hasFailures: false };
    return { retryAfterSeconds: Math.max(0, rows[0].retry_after ?? 0), hasFailures: true };
  }

  /**
   * Counts one failure atomically (concurrent attempts cannot both slip under the limit). A
   * lock that has run out starts a fresh count; reaching the limit sets the lock.
   */
  async recordFailure(upiId: string): Promise<FailureOutcome> {
    const rows = (await this.dataSource.query(
      `WITH counted AS (
         INSERT INTO login_attempts AS a (upi_id, failed_count, locked_until, updated_at)
         VALUES (lower($1), 1, NULL, now())
         ON CONFLICT (upi_id) DO UPDATE SET
           failed_count = CASE WHEN a.locked_until <= now() THEN 1 ELSE a.failed_count + 1 END,
           locked_until = CASE WHEN a.locked_until <= now() THEN NULL ELSE a.locked_until END,
           updated_at = now()
         RETURNING upi_id, failed_count, locked_until
       )
       UPDATE login_attempts l
       SET locked_until = now() + make_interval(secs => $3)
       FROM counted c
       WHERE l.upi_id = c.upi_id AND c.failed_count >= $2 AND c.locked_until IS NULL
       RETURNING l.upi_id`,
      [upiId, this.config.loginMaxFailedAttempts, this.config.loginLockoutSeconds],
    )) as [unknown[], number];
    return { lockedNow: rows[1] > 0 };
  }

  async clear(upiId: string): Promise<void> {
    await this.dataSource.query('DELETE FROM login_attempts WHERE upi_id = lower($1)', [upiId]);
  }

  /** Rows whose lock is over and whose last failure is older than a day: the count starts again. */
  async purgeStale(): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM login_attempts
       WHERE updated_at < now() - interval '1 day' AND (locked_until IS NULL OR locked_until < now())`,
    )) as [unknown, number];
    return deleted;
  }
}
