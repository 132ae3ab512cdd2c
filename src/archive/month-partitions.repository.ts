import type { ClientBase } from 'pg';
import { type ArchivedTable, HASH_COLUMN, type Month, monthPartition, partitionMonth } from './archive-month';

// The monthly partitions of the money records (transactions_pYYYYMM, ledger_entries_pYYYYMM), as
// the archive tool reads, detaches, drops and brings them back. Run as the owner: only the owner of
// a partition may detach or drop it, and the service's role owns nothing. Partition names come from
// monthPartition() over a validated month and a fixed table name, never from input text.

const PARTITIONS = `
  SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  WHERE i.inhparent = $1::regclass ORDER BY c.relname`;

/** The database's clock: the current month and the newest month whose end is RETENTION_YEARS ($1) or more ago. */
const CLOCK = `
  SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS current,
         to_char((now() - make_interval(years => $1::int)) AT TIME ZONE 'UTC', 'YYYY-MM') AS retained`;

/**
 * What archiving everything before $1 would cut through, and what no file of one month could
 * verify alone: a reversal and the transfer it names on either side of the cut, and a ledger entry
 * stamped on the other side of it from its transaction (only the first-round transfer function
 * stamped them apart, by moments).
 */
const ACROSS_THE_CUT = `
  SELECT
    (SELECT count(*) FROM transactions r JOIN transactions o ON o.id = r.original_transaction_id
     WHERE r.type = 'REVERSAL' AND (r.created_at < $1::timestamptz) <> (o.created_at < $1::timestamptz))::int AS reversals,
    (SELECT count(*) FROM ledger_entries l JOIN transactions t ON t.id = l.transaction_id
     WHERE l.created_at >= $1::timestamptz - interval '1 day' AND l.created_at < $1::timestamptz + interval '1 day'
       AND (l.created_at < $1::timestamptz) <> (t.created_at < $1::timestamptz))::int AS entries`;

/** Accounts whose chain runs into the month, out of it and back (an entry of another month between two of its own). */
const INTERLEAVED = (partition: string) => `
  SELECT count(*)::int AS accounts
  FROM (SELECT m.user_id, min(m.id) AS lo, max(m.id) AS hi FROM ${partition} m GROUP BY m.user_id) s
  WHERE EXISTS (SELECT 1 FROM ledger_entries l WHERE l.user_id = s.user_id AND l.id > s.lo AND l.id < s.hi
                  AND (l.created_at < $1::timestamptz OR l.created_at >= $2::timestamptz))`;

const LOCK = (partitions: string[]) => `LOCK TABLE ${partitions.join(', ')} IN SHARE MODE`;
const COUNT = (partition: string) => `SELECT count(*)::text AS rows FROM ${partition}`;
// A relation's ($1) columns in order, each t.<column> but its hash column ($2) through $3, a format() pattern.
const COLUMNS = `
  SELECT string_agg(CASE WHEN a.attname = $2 THEN format($3, a.attname) ELSE format('t.%I', a.attname) END, ', '
                    ORDER BY a.attnum) AS list
  FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`;
// Each row as row_to_json of its columns, the hash as the hex text the files have always held.
const EXPORT = (partition: string, columns: string) =>
  `DECLARE archive_rows NO SCROLL CURSOR FOR
   SELECT row_to_json(r)::text AS line FROM ${partition} t CROSS JOIN LATERAL (SELECT ${columns}) r ORDER BY t.id`;
const FETCH = (batch: number) => `FETCH ${batch} FROM archive_rows`;
const CLOSE = 'CLOSE archive_rows';
const DETACH = (table: ArchivedTable, partition: string) => `ALTER TABLE ${table} DETACH PARTITION ${partition}`;
const DROP = (partition: string) => `DROP TABLE ${partition}`;
const ENSURE = 'SELECT ensure_partitions($1, $2, $3) AS created';

export class MonthPartitionsRepository {
  /** The months that have a partition of this table. */
  static async months(db: ClientBase, table: ArchivedTable): Promise<Month[]> {
    const { rows } = await db.query<{ name: string }>(PARTITIONS, [table]);
    return rows.map((row) => partitionMonth(table, row.name)).filter((month): month is Month => month !== null);
  }

  static async clock(db: ClientBase, retentionYears: number): Promise<{ current: Month; retained: Month }> {
    return (await db.query<{ current: Month; retained: Month }>(CLOCK, [retentionYears])).rows[0];
  }

  static async acrossTheCut(db: ClientBase, cut: Date): Promise<{ reversals: number; entries: number }> {
    return (await db.query<{ reversals: number; entries: number }>(ACROSS_THE_CUT, [cut])).rows[0];
  }

  static async interleavedAccounts(db: ClientBase, month: Month, from: Date, to: Date): Promise<number> {
    const partition = monthPartition('ledger_entries', month);
    return (await db.query<{ accounts: number }>(INTERLEAVED(partition), [from, to])).rows[0].accounts;
  }

  /** Holds off every write to the month (a late reversal's status update included) until the caller's transaction ends. */
  static async lock(db: ClientBase, tables: ArchivedTable[], month: Month): Promise<void> {
    if (tables.length > 0) await db.query(LOCK(tables.map((table) => monthPartition(table, month))));
  }

  static async count(db: ClientBase, table: ArchivedTable, month: Month): Promise<number> {
    return Number((await db.query<{ rows: string }>(COUNT(monthPartition(table, month)))).rows[0].rows);
  }

  /**
   * The columns of a table (a partition, a scratch table) as a select list over `t`, in their order,
   * the table's hash column through `hashPattern` (a format() pattern of its name, e.g.
   * `encode(t.%1$I, 'hex') AS %1$I`).
   */
  static async columns(db: ClientBase, relation: string, table: ArchivedTable, hashPattern: string): Promise<string> {
    const { rows } = await db.query<{ list: string }>(COLUMNS, [relation, HASH_COLUMN[table], hashPattern]);
    return rows[0].list;
  }

  /**
   * The partition's rows in id order, each as PostgreSQL's JSON of the row with its hash in hex, in
   * batches (a cursor: inside a transaction).
   */
  static async *rows(db: ClientBase, table: ArchivedTable, month: Month, batch: number): AsyncGenerator<string[]> {
    const partition = monthPartition(table, month);
    const columns = await MonthPartitionsRepository.columns(db, partition, table, `encode(t.%1$I, 'hex') AS %1$I`);
    await db.query(EXPORT(partition, columns));
    for (;;) {
      const { rows } = await db.query<{ line: string }>(FETCH(batch));
      if (rows.length > 0) yield rows.map((row) => row.line);
      if (rows.length < batch) break;
    }
    await db.query(CLOSE);
  }

  static async detachAndDrop(db: ClientBase, table: ArchivedTable, month: Month): Promise<void> {
    const partition = monthPartition(table, month);
    await db.query(DETACH(table, partition));
    await db.query(DROP(partition));
  }

  /** The month's partition, made if missing (src/partitions/sql/ensure_partitions.sql). */
  static async ensure(db: ClientBase, table: ArchivedTable, from: Date, to: Date): Promise<void> {
    await db.query(ENSURE, [table, from, to]);
  }
}
