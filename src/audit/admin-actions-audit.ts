import type { ClientBase } from 'pg';

/** The admin actions log in the audit: how many actions it holds, and whether its append-only guard is on. */
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
