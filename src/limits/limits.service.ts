import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { type AdminActionName, recordAdminAction } from './admin-actions';
import { type LimitsRow, LimitsView } from './limits.dto';
import { LimitsMetrics } from './limits-metrics';

export interface LimitOverrides {
  dailyAmountMax?: string | null;
  dailyCountMax?: number | null;
}

export interface AdminAction {
  action: AdminActionName;
  reason: string | null;
  adminUpiId: string;
  at: string;
  details: Record<string, unknown>;
}

/** The limits view, per-user overrides and freezes; each change and its log record in one transaction. */
@Injectable()
export class LimitsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly metrics: LimitsMetrics,
  ) {}

  async view(referenceId: string): Promise<{ upiId: string; referenceId: string; view: LimitsView } | null> {
    const [row] = (await this.dataSource.query(
      `SELECT u.upi_id, u.reference_id, u.frozen_at IS NOT NULL AS frozen,
              iso_millis(u.created_at + make_interval(hours => $3)) AS new_until,
              u.created_at + make_interval(hours => $3) > now() AS is_new,
              o.daily_amount_max::text AS amount_override, o.daily_count_max AS count_override,
              coalesce(d.amount, 0)::numeric(19,4)::text AS amount_used, coalesce(d.count, 0) AS count_used,
              iso_millis(((now() AT TIME ZONE $2)::date + 1)::timestamp AT TIME ZONE $2) AS resets_at,
              (SELECT coalesce(sum(t.amount), 0)::numeric(19,4)::text FROM transactions t
               WHERE t.sender_id = u.id AND t.type = 'TRANSFER' AND t.created_at >= u.created_at) AS new_used
       FROM users u
       LEFT JOIN limit_overrides o ON o.user_id = u.id
       LEFT JOIN limits_daily_usage d ON d.user_id = u.id AND d.day = (now() AT TIME ZONE $2)::date
       WHERE u.reference_id::text = $1 AND u.kind = 'USER'`,
      [referenceId, this.config.businessTimeZone, this.config.newUserPeriodHours],
    )) as LimitsRow[];
    if (!row) return null;
    return { upiId: row.upi_id, referenceId: row.reference_id, view: LimitsView.of(row, this.config) };
  }

  async setOverrides(referenceId: string, overrides: LimitOverrides, admin: string): Promise<void> {
    await this.change(referenceId, admin, 'LIMITS', null, { ...overrides }, async (query, userId) => {
      const keep = (field: keyof LimitOverrides) => (overrides[field] === undefined ? 'true' : 'false');
      await query(
        `INSERT INTO limit_overrides (user_id, daily_amount_max, daily_count_max) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET
           daily_amount_max = CASE WHEN $4 THEN limit_overrides.daily_amount_max ELSE EXCLUDED.daily_amount_max END,
           daily_count_max = CASE WHEN $5 THEN limit_overrides.daily_count_max ELSE EXCLUDED.daily_count_max END,
           updated_at = now()`,
        [
          userId,
          overrides.dailyAmountMax ?? null,
          overrides.dailyCountMax ?? null,
          keep('dailyAmountMax'),
          keep('dailyCountMax'),
        ],
      );
    });
  }

  /** Takes the account's row lock: movements already holding it finish first, those queued behind it see the freeze. */
  async setFrozen(referenceId: string, frozen: boolean, reason: string, admin: string): Promise<void> {
    await this.change(referenceId, admin, frozen ? 'FREEZE' : 'UNFREEZE', reason, {}, async (query, userId) => {
      await query(
        `UPDATE users SET frozen_at = CASE WHEN $2 THEN coalesce(frozen_at, now()) END,
                          frozen_reason = CASE WHEN $2 THEN $3 END
         WHERE id = $1`,
        [userId, frozen, reason],
      );
    });
    await this.metrics.sample();
  }

  async actions(referenceId: string): Promise<AdminAction[] | null> {
    const [user] = (await this.dataSource.query(
      `SELECT id FROM users WHERE reference_id::text = $1 AND kind = 'USER'`,
      [referenceId],
    )) as { id: string }[];
    if (!user) return null;
    const rows = (await this.dataSource.query(
      `SELECT action, reason, admin_upi_id, iso_millis(at) AS at, details FROM admin_actions
       WHERE user_id = $1 ORDER BY id DESC LIMIT 1000`,
      [user.id],
    )) as { action: AdminActionName; reason: string | null; admin_upi_id: string; at: string; details: object }[];
    return rows.map((row) => ({
      action: row.action,
      reason: row.reason,
      adminUpiId: row.admin_upi_id,
      at: row.at,
      details: row.details as Record<string, unknown>,
    }));
  }

  private async change(
    referenceId: string,
    admin: string,
    action: AdminActionName,
    reason: string | null,
    details: Record<string, unknown>,
    work: (query: (sql: string, params: unknown[]) => Promise<unknown[]>, userId: string) => Promise<void>,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const query = (sql: string, params: unknown[]) => manager.query(sql, params) as Promise<unknown[]>;
      const [user] = (await query(`SELECT id FROM users WHERE reference_id::text = $1 AND kind = 'USER' FOR UPDATE`, [
        referenceId,
      ])) as { id: string }[];
      if (!user) throw new ApiError(ErrorCode.UserNotFound, `No user with reference ID ${referenceId}`);
      await work(query, user.id);
      await recordAdminAction(query, { userId: user.id, action, adminUpiId: admin, reason, details });
    });
  }
}
