import type { ClientBase } from 'pg';

export type AdminActionName = 'FREEZE' | 'UNFREEZE' | 'LIMITS' | 'GRANT_ROLE' | 'REVOKE_ROLE';

export interface AdminActionRecord {
  userId: string;
  action: AdminActionName;
  adminUpiId: string;
  reason: string | null;
  details: Record<string, unknown>;
}

// admin_actions: the admin actions log, on the caller's connection (the service's or the admin CLI's).

/**
 * Appends to the admin actions log (append-only: its trigger refuses UPDATE, DELETE and TRUNCATE),
 * in the caller's transaction, so the action and its record commit together.
 */
export async function recordAdminAction(db: ClientBase, record: AdminActionRecord): Promise<void> {
  await db.query(
    `INSERT INTO admin_actions (user_id, action, reason, admin_upi_id, details) VALUES ($1, $2, $3, $4, $5)`,
    [record.userId, record.action, record.reason, record.adminUpiId, JSON.stringify(record.details)],
  );
}

/** The log in the audit (src/audit): how many actions it holds, and whether its append-only guard is on. */
export interface AdminActionsAudit {
  appendOnly: boolean;
  actions: number;
}

/**
 * The log is evidence only while nobody can rewrite it: its trigger (migration 1764007000000) must
 * exist and fire for ordinary sessions ('O') or always ('A'); disabled or replica-only is a finding.
 */
export async function auditAdminActions(db: ClientBase): Promise<AdminActionsAudit> {
  const { rows } = await db.query<AdminActionsAudit>(
    `SELECT (SELECT count(*)::int FROM admin_actions) AS actions,
            EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = 'admin_actions'::regclass
                    AND tgname = 'tr_admin_actions_append_only' AND tgenabled IN ('O', 'A')) AS "appendOnly"`,
  );
  return rows[0];
}
