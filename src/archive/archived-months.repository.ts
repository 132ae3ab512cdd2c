import { Inject, Injectable } from '@nestjs/common';
import type { ClientBase, Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import type { Month } from './archive-month';

/** A month whose money records were archived (npm run archive) and dropped from the live tables. */
export interface ArchivedMonthRow {
  month: Month;
  transactions: string;
  ledgerEntries: string;
  manifestSha256: string;
}

// Months are dates at their first day; their bounds are UTC instants, as the partitions' are.
const START = `(a.month::timestamp AT TIME ZONE 'UTC')`;
const END = `((a.month + interval '1 month') AT TIME ZONE 'UTC')`;

/** The month after the newest archived one, when any archived month meets [$1, $2). */
const FIRST_LIVE_MONTH_IF_REACHED = `
  SELECT to_char(max(a.month) + interval '1 month', 'YYYY-MM') AS "firstLiveMonth"
  FROM archived_months a
  HAVING bool_or(${START} < $2::timestamptz AND ${END} > $1::timestamptz)`;

const COLUMNS = `to_char(a.month, 'YYYY-MM') AS month, a.transactions::text AS transactions,
  a.ledger_entries::text AS "ledgerEntries", a.manifest_sha256 AS "manifestSha256"`;
const LIST = `SELECT ${COLUMNS} FROM archived_months a ORDER BY a.month`;
const FIND = `SELECT ${COLUMNS} FROM archived_months a WHERE a.month = to_date($1, 'YYYY-MM')`;
const INSERT = `INSERT INTO archived_months (month, transactions, ledger_entries, manifest_sha256)
  VALUES (to_date($1, 'YYYY-MM'), $2, $3, $4)`;
// Its ledger_checkpoints go with it (ON DELETE CASCADE).
const REMOVE = `DELETE FROM archived_months WHERE month = to_date($1, 'YYYY-MM')`;

/** archived_months: written only by the archive tool (npm run archive), as the owner; read by statements. */
@Injectable()
export class ArchivedMonthsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** Null when [from, to) meets no archived month; else the first month that is live after them (YYYY-MM). */
  async findFirstLiveMonthIfReached(from: string, to: string): Promise<Month | null> {
    const { rows } = await this.pool.query<{ firstLiveMonth: Month }>({
      name: 'archived-months-reached',
      text: FIRST_LIVE_MONTH_IF_REACHED,
      values: [from, to],
    });
    return rows[0]?.firstLiveMonth ?? null;
  }

  // The archive tool's and the audit's, on their own connection.

  static async list(db: ClientBase): Promise<ArchivedMonthRow[]> {
    return (await db.query<ArchivedMonthRow>(LIST)).rows;
  }

  static async find(db: ClientBase, month: Month): Promise<ArchivedMonthRow | null> {
    return (await db.query<ArchivedMonthRow>(FIND, [month])).rows[0] ?? null;
  }

  static async insert(db: ClientBase, row: ArchivedMonthRow): Promise<void> {
    await db.query(INSERT, [row.month, row.transactions, row.ledgerEntries, row.manifestSha256]);
  }

  static async remove(db: ClientBase, month: Month): Promise<void> {
    await db.query(REMOVE, [month]);
  }
}
