import { Inject, Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import type { AdminActionName } from './admin-actions.repository';
import type { LimitsRow } from './limits.dto';

// An account's limits as its owner sees them: the overrides, today's usage in the business time
// zone, and the new-user period's spending. One statement, one snapshot. The users and
// transactions columns are read here only; their modules own them.
// $1 the reference ID; $2 the business time zone; $3 the new-user period in hours.
const VIEW = `
  SELECT u.upi_id, u.reference_id, u.frozen_at IS NOT NULL AS frozen,
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
  WHERE u.reference_id::text = $1 AND u.kind = 'USER'`;

// A field left out of the request ($4, $5 true) keeps its override; null goes back to the profile.
const UPSERT_OVERRIDES = `
  INSERT INTO limit_overrides (user_id, daily_amount_max, daily_count_max) VALUES ($1, $2, $3)
  ON CONFLICT (user_id) DO UPDATE SET
    daily_amount_max = CASE WHEN $4 THEN limit_overrides.daily_amount_max ELSE EXCLUDED.daily_amount_max END,
    daily_count_max = CASE WHEN $5 THEN limit_overrides.daily_count_max ELSE EXCLUDED.daily_count_max END,
    updated_at = now()`;

const ACTIONS = `
  SELECT action, reason, admin_upi_id, iso_millis(at) AS at, details FROM admin_actions
  WHERE user_id = $1 ORDER BY id DESC LIMIT 1000`;

export interface LimitOverrides {
  dailyAmountMax?: string | null;
  dailyCountMax?: number | null;
}

export interface AdminActionRow {
  action: AdminActionName;
  reason: string | null;
  admin_upi_id: string;
  at: string;
  details: Record<string, unknown>;
}

/** limit_overrides and the admin actions log (limits_daily_usage is written by the money SQL, src/limits/sql). */
@Injectable()
export class LimitsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async findView(referenceId: string, timeZone: string, newUserPeriodHours: number): Promise<LimitsRow | null> {
    const { rows } = await this.pool.query<LimitsRow>(VIEW, [referenceId, timeZone, newUserPeriodHours]);
    return rows[0] ?? null;
  }

  /** In the caller's transaction, beside the action's record. A field left undefined keeps its override. */
  async upsertOverrides(client: PoolClient, userId: string, overrides: LimitOverrides): Promise<void> {
    const keep = (field: keyof LimitOverrides) => overrides[field] === undefined;
    await client.query(UPSERT_OVERRIDES, [
      userId,
      overrides.dailyAmountMax ?? null,
      overrides.dailyCountMax ?? null,
      keep('dailyAmountMax'),
      keep('dailyCountMax'),
    ]);
  }

  /** The newest thousand actions on the account, newest first. */
  async findActions(userId: string): Promise<AdminActionRow[]> {
    const { rows } = await this.pool.query<AdminActionRow>(ACTIONS, [userId]);
    return rows;
  }
}
