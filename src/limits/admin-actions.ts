/** One SQL statement's rows, on the caller's transaction: the service's or the admin CLI's pg client. */
export type ActionQuery = (sql: string, params: unknown[]) => Promise<unknown[]>;

export type AdminActionName = 'FREEZE' | 'UNFREEZE' | 'LIMITS' | 'GRANT_ROLE' | 'REVOKE_ROLE';

export interface AdminActionRecord {
  userId: string;
  action: AdminActionName;
  adminUpiId: string;
  reason: string | null;
  details: Record<string, unknown>;
}

/**
 * Appends to the admin actions log (append-only: its trigger refuses UPDATE, DELETE and TRUNCATE),
 * in the caller's transaction, so the action and its record commit together.
 */
export async function recordAdminAction(query: ActionQuery, record: AdminActionRecord): Promise<void> {
  await query(
    `INSERT INTO admin_actions (user_id, action, reason, admin_upi_id, details) VALUES ($1, $2, $3, $4, $5)`,
    [record.userId, record.action, record.reason, record.adminUpiId, JSON.stringify(record.details)],
  );
}
