import { Inject, Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';
import { UsersRepository } from '../users/users.repository';
import { type AdminActionName, recordAdminAction } from './admin-actions.repository';
import { LimitsView } from './limits.dto';
import { LimitsMetrics } from './limits-metrics';
import { type LimitOverrides, LimitsRepository } from './limits.repository';

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
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly limits: LimitsRepository,
    private readonly users: UsersRepository,
    private readonly config: AppConfig,
    private readonly metrics: LimitsMetrics,
  ) {}

  async view(referenceId: string): Promise<{ upiId: string; referenceId: string; view: LimitsView } | null> {
    const row = await this.limits.findView(referenceId, this.config.businessTimeZone, this.config.newUserPeriodHours);
    if (!row) return null;
    return { upiId: row.upi_id, referenceId: row.reference_id, view: LimitsView.of(row, this.config) };
  }

  async setOverrides(referenceId: string, overrides: LimitOverrides, admin: string): Promise<void> {
    await this.change(referenceId, admin, 'LIMITS', null, { ...overrides }, (client, userId) =>
      this.limits.upsertOverrides(client, userId, overrides),
    );
  }

  /** Takes the account's row lock: movements already holding it finish first, those queued behind it see the freeze. */
  async setFrozen(referenceId: string, frozen: boolean, reason: string, admin: string): Promise<void> {
    await this.change(referenceId, admin, frozen ? 'FREEZE' : 'UNFREEZE', reason, {}, (client, userId) =>
      frozen ? this.users.freeze(client, userId, reason) : this.users.unfreeze(client, userId),
    );
    await this.metrics.sample();
  }

  async actions(referenceId: string): Promise<AdminAction[] | null> {
    const userId = await this.users.findUserId(referenceId);
    if (!userId) return null;
    const rows = await this.limits.findActions(userId);
    return rows.map((row) => ({
      action: row.action,
      reason: row.reason,
      adminUpiId: row.admin_upi_id,
      at: row.at,
      details: row.details,
    }));
  }

  /** The change and its record in the admin actions log commit together, or neither does. */
  private async change(
    referenceId: string,
    admin: string,
    action: AdminActionName,
    reason: string | null,
    details: Record<string, unknown>,
    work: (client: PoolClient, userId: string) => Promise<void>,
  ): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const userId = await this.users.lockUser(client, referenceId);
      if (!userId) throw new ApiError(ErrorCode.UserNotFound, `No user with reference ID ${referenceId}`);
      await work(client, userId);
      await recordAdminAction(client, { userId, action, adminUpiId: admin, reason, details });
    });
  }
}
