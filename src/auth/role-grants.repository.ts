import { Inject, Injectable } from '@nestjs/common';
import type { ClientBase, Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';

export type RoleGrantAction = 'GRANT_ROLE' | 'REVOKE_ROLE';

const HOLDERS_OF_ROLE = `SELECT u.reference_id FROM role_grants g JOIN users u ON u.id = g.user_id WHERE g.role = $1`;
const HAS_ROLE = `SELECT EXISTS (SELECT 1 FROM role_grants g JOIN users u ON u.id = g.user_id
                  WHERE u.reference_id = $1 AND g.role = $2) AS held`;
const GRANT = `INSERT INTO role_grants (user_id, role, granted_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`;
const REVOKE = `DELETE FROM role_grants WHERE user_id = $1 AND role = $2`;
const RECORD_EVENT = `INSERT INTO role_grant_events (user_id, role, action, actor) VALUES ($1, $2, $3, $4)`;

/**
 * role_grants and its history, role_grant_events: which account holds which role, and who granted
 * or revoked it when. The writes run on the caller's transaction (the service's or the admin CLI's).
 */
@Injectable()
export class RoleGrantsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** The reference ID of every account holding the role. */
  async findReferenceIdsWithRole(role: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ reference_id: string }>(HOLDERS_OF_ROLE, [role]);
    return rows.map((row) => row.reference_id);
  }

  async hasRole(referenceId: string, role: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ held: boolean }>(HAS_ROLE, [referenceId, role]);
    return rows[0].held;
  }

  /** True when the account did not hold the role before. */
  static async grant(db: ClientBase, userId: string, role: string, grantedBy: string): Promise<boolean> {
    return ((await db.query(GRANT, [userId, role, grantedBy])).rowCount ?? 0) > 0;
  }

  /** True when the account held the role. */
  static async revoke(db: ClientBase, userId: string, role: string): Promise<boolean> {
    return ((await db.query(REVOKE, [userId, role])).rowCount ?? 0) > 0;
  }

  static async recordEvent(
    db: ClientBase,
    event: { userId: string; role: string; action: RoleGrantAction; actor: string },
  ): Promise<void> {
    await db.query(RECORD_EVENT, [event.userId, event.role, event.action, event.actor]);
  }
}
