import type { ClientBase } from 'pg';

// ledger_checkpoints: each account's chain head at the end of an archived month (written by the
// archive tool with its archived_months row, deleted with it on restore). The live audit links an
// account's first entry after a cut to it, and a balance before a live period starts from it.

/** One account's head at an archived month's cut, as the archive's manifest records it (ids and amounts as text). */
export interface LedgerCheckpoint {
  accountId: string;
  entries: string;
  lastEntryId: string;
  hash: string;
  balanceAfter: string;
  net: string;
}

const INSERT = `
  INSERT INTO ledger_checkpoints (month, user_id, entries, last_entry_id, hash, balance_after, net)
  SELECT to_date($1, 'YYYY-MM'), c."accountId", c.entries, c."lastEntryId", c.hash, c."balanceAfter", c.net
  FROM json_to_recordset($2::json) AS c("accountId" bigint, entries bigint, "lastEntryId" bigint, hash text,
                                         "balanceAfter" numeric, net numeric)`;

export class LedgerCheckpointsRepository {
  /** In the archive tool's transaction, with the month's archived_months row. */
  static async insert(db: ClientBase, month: string, checkpoints: LedgerCheckpoint[]): Promise<void> {
    await db.query(INSERT, [month, JSON.stringify(checkpoints)]);
  }
}
