import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';

export type AttemptStart = { allowed: true } | { allowed: false; retryAfterSeconds: number; lockedNow: boolean };

/**
 * Consecutive failed PIN checks per UPI ID, in PostgreSQL so that restarts and every instance
 * share them. An attempt is counted before its PIN is checked, so parallel guesses cannot
 * all slip past the limit while the slow hash runs; a success deletes the row.
 */
@Injectable()
export class LoginAttemptsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Counts one attempt atomically; refused while locked, or when it would exceed the limit (which locks). */
  async start(upiId: string): Promise<AttemptStart> {
    const max = this.config.loginMaxFailedAttempts;
    const rows = (await this.dataSource.query(
      `INSERT INTO login_attempts AS a (upi_id, failed_count, locked_until, updated_at)
       VALUES (lower($1), 1, NULL, now())
       ON CONFLICT (upi_id) DO UPDATE SET
         failed_count = CASE
           WHEN a.locked_until > now() THEN a.failed_count
           WHEN a.locked_until <= now() THEN 1
           ELSE a.failed_count + 1 END,
         locked_until = CASE
           WHEN a.locked_until > now() THEN a.locked_until
           WHEN a.locked_until <= now() THEN NULL
           WHEN a.failed_count + 1 > $2 THEN now() + make_interval(secs => $3)
           END,
         updated_at = now()
       RETURNING failed_count, ceil(extract(epoch FROM locked_until - now()))::int AS retry_after`,
      [upiId, max, this.config.loginLockoutSeconds],
    )) as { failed_count: number; retry_after: number | null }[];
    const { failed_count: count, retry_after: retryAfter } = rows[0];
    if (retryAfter === null) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, retryAfter), lockedNow: count === max + 1 };
  }

  /** The attempt failed: reaching the limit locks the UPI ID. True when this call set the lock. */
  async failed(upiId: string): Promise<boolean> {
    const [, locked] = (await this.dataSource.query(
      `UPDATE login_attempts SET locked_until = now() + make_interval(secs => $3), updated_at = now()
       WHERE upi_id = lower($1) AND locked_until IS NULL AND failed_count >= $2`,
      [upiId, this.config.loginMaxFailedAttempts, this.config.loginLockoutSeconds],
    )) as [unknown, number];
    return locked > 0;
  }

  async succeeded(upiId: string): Promise<void> {
    await this.dataSource.query('DELETE FROM login_attempts WHERE upi_id = lower($1)', [upiId]);
  }

  /** Rows whose lock is over and whose last attempt is older than a day: the count starts again. */
  async purgeStale(): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM login_attempts
       WHERE updated_at < now() - interval '1 day' AND (locked_until IS NULL OR locked_until < now())`,
    )) as [unknown, number];
    return deleted;
  }
}
