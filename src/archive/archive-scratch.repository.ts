import type { ClientBase } from 'pg';
import type { AccountCheckpoint } from './archive-files';
import { type ArchivedTable, HASH_COLUMN, type Month, monthPartition } from './archive-month';
import { MonthPartitionsRepository } from './month-partitions.repository';

// An archived month's files, read back into temporary tables of the session (archive_transactions,
// archive_ledger_entries), where PostgreSQL checks them with the same hash functions that sealed
// the rows: the archive tool before it drops a partition, the audit (--archive) and a restore.
// The scratch tables hold the rows as the files do: the table's columns, its hash as 64 hex
// characters (the live tables hold the 32 bytes: migrations/1764035000000-hashes-as-bytes.ts).

const scratch = (table: ArchivedTable) => `archive_${table}`;

// Empty, the hash column's change of type is instant (and none when the table was made before).
const PREPARE = (table: ArchivedTable) =>
  `CREATE TEMPORARY TABLE IF NOT EXISTS ${scratch(table)} (LIKE ${table}); TRUNCATE ${scratch(table)};
   ALTER TABLE ${scratch(table)} ALTER COLUMN ${HASH_COLUMN[table]} TYPE char(64)`;
// Each line is the row_to_json of a row of the table: json_populate_recordset reads it back exactly.
const LOAD = (table: ArchivedTable) =>
  `INSERT INTO ${scratch(table)} SELECT * FROM json_populate_recordset(NULL::${scratch(table)}, $1::json)`;
const COUNT = (table: ArchivedTable) => `SELECT count(*)::text AS rows FROM ${scratch(table)}`;

/** Rows in the files and not in the partition (its hash as hex), and the other way round: 0 when they hold the same rows. */
const DIFFERENCES = (table: ArchivedTable, partition: string) => `
  WITH live AS (
    SELECT to_jsonb(p) || jsonb_build_object('${HASH_COLUMN[table]}', encode(p.${HASH_COLUMN[table]}, 'hex')) AS line
    FROM ${partition} p)
  SELECT ((SELECT count(*) FROM (SELECT to_jsonb(a) FROM ${scratch(table)} a EXCEPT ALL SELECT line FROM live) d)
        + (SELECT count(*) FROM (SELECT line FROM live EXCEPT ALL SELECT to_jsonb(a) FROM ${scratch(table)} a) d))::int
    AS rows`;

const SIGNED = `CASE l.entry_type WHEN 'CREDIT' THEN l.amount ELSE -l.amount END`;

/** The entry before $2 of account $1 that is not in the month: a live one or an archived month's head. */
const PREDECESSOR = (account: string, firstEntryId: string) => `(
  SELECT x.hash, x.balance_after FROM (
    (SELECT l.id, encode(l.hash, 'hex') AS hash, l.balance_after FROM ledger_entries l
     WHERE l.user_id = ${account} AND l.id < ${firstEntryId} ORDER BY l.id DESC LIMIT 1)
    UNION ALL
    (SELECT k.last_entry_id, k.hash::text, k.balance_after FROM ledger_checkpoints k
     WHERE k.user_id = ${account} AND k.last_entry_id < ${firstEntryId} ORDER BY k.last_entry_id DESC LIMIT 1)
  ) x ORDER BY x.id DESC LIMIT 1)`;

/** Each account's chain across the month's entries: where it starts and its head at the cut. */
const CHECKPOINTS = `
  WITH s AS (
    SELECT l.user_id, count(*) AS entries, min(l.id) AS first_id, max(l.id) AS last_id, sum(${SIGNED}) AS net
    FROM archive_ledger_entries l GROUP BY l.user_id)
  SELECT s.user_id::text AS "accountId", s.entries::text AS entries, s.first_id::text AS "firstEntryId",
         p.hash AS "previousHash", coalesce(p.balance_after, 0)::numeric(19,4)::text AS "previousBalance",
         s.last_id::text AS "lastEntryId", h.hash::text AS hash, h.balance_after::numeric(19,4)::text AS "balanceAfter",
         s.net::numeric(19,4)::text AS net
  FROM s JOIN archive_ledger_entries h ON h.id = s.last_id
  LEFT JOIN LATERAL ${PREDECESSOR('s.user_id', 's.first_id')} p ON true
  ORDER BY s.user_id`;

const MANIFEST_CHECKPOINTS = `json_to_recordset($1::json) AS m("accountId" bigint, entries bigint,
  "firstEntryId" bigint, "previousHash" text, "previousBalance" numeric, "lastEntryId" bigint, hash text,
  "balanceAfter" numeric, net numeric)`;

/**
 * The files' rows against themselves and the manifest ($1: its checkpoints; $2, $3 the month's
 * bounds): every transaction's content hash; every entry's link in its account's chain, the first
 * from the manifest's start; each account's head as the manifest says; every row inside the month.
 */
const FINDINGS = `
  WITH m AS (SELECT * FROM ${MANIFEST_CHECKPOINTS}),
  e AS (
    SELECT l.*, row_number() OVER w AS n, lag(l.hash) OVER w AS prev_hash, lag(l.balance_after) OVER w AS prev_after
    FROM archive_ledger_entries l WINDOW w AS (PARTITION BY l.user_id ORDER BY l.id)),
  links AS (
    SELECT e.hash IS DISTINCT FROM ledger_entry_hash(CASE WHEN e.n = 1 THEN m."previousHash" ELSE e.prev_hash END,
             e.user_id, e.transaction_reference_id, e.entry_type, e.amount, e.balance_before, e.balance_after,
             e.created_at) AS bad_hash,
           e.balance_before IS DISTINCT FROM CASE WHEN e.n = 1 THEN m."previousBalance" ELSE e.prev_after END
             OR e.balance_after <> e.balance_before + CASE e.entry_type WHEN 'CREDIT' THEN e.amount ELSE -e.amount END
             AS bad_balance,
           NOT (e.created_at >= $2::timestamptz AND e.created_at < $3::timestamptz) AS outside
    FROM e LEFT JOIN m ON m."accountId" = e.user_id),
  heads AS (
    SELECT l.user_id, count(*) AS entries, min(l.id) AS first_id, max(l.id) AS last_id, sum(${SIGNED}) AS net,
           (array_agg(l.hash::text ORDER BY l.id DESC))[1] AS hash,
           (array_agg(l.balance_after ORDER BY l.id DESC))[1] AS balance_after
    FROM archive_ledger_entries l GROUP BY l.user_id)
  SELECT
    (SELECT count(*) FROM links WHERE bad_hash)::int AS "brokenLinks",
    (SELECT count(*) FROM links WHERE bad_balance)::int AS "brokenBalances",
    (SELECT count(*) FROM links WHERE outside)::int AS "entriesOutsideTheMonth",
    (SELECT count(*) FROM m FULL JOIN heads h ON h.user_id = m."accountId"
     WHERE (h.entries, h.first_id, h.last_id, h.hash, h.balance_after, h.net)
           IS DISTINCT FROM (m.entries, m."firstEntryId", m."lastEntryId", m.hash, m."balanceAfter", m.net))::int
      AS "headsUnlikeTheManifest",
    (SELECT count(*) FROM archive_transactions t
     WHERE t.content_hash IS DISTINCT FROM transaction_content_hash(t.id, t.reference_id, t.sender_id, t.receiver_id,
             t.sender_upi_id, t.receiver_upi_id, t.amount, t.type, t.note, t.original_transaction_id,
             t.original_reference_id, t.created_at))::int AS "brokenTransactions",
    (SELECT count(*) FROM archive_transactions t
     WHERE NOT (t.created_at >= $2::timestamptz AND t.created_at < $3::timestamptz))::int AS "transactionsOutsideTheMonth"`;

/**
 * The manifest's checkpoints ($1) against the database ($2 the month): each account's start is the
 * head of its entries before the month (live, or an archived month's checkpoint), and its head is
 * the checkpoint the database kept for the month.
 */
const LINKS = `
  WITH m AS (SELECT * FROM ${MANIFEST_CHECKPOINTS})
  SELECT
    (SELECT count(*) FROM m LEFT JOIN LATERAL ${PREDECESSOR('m."accountId"', 'm."firstEntryId"')} p ON true
     WHERE p.hash IS DISTINCT FROM m."previousHash" OR coalesce(p.balance_after, 0) <> m."previousBalance")::int
      AS "startsUnlinked",
    (SELECT count(*) FROM m FULL JOIN (SELECT * FROM ledger_checkpoints WHERE month = to_date($2, 'YYYY-MM')) k
       ON k.user_id = m."accountId"
     WHERE (k.entries, k.last_entry_id, k.hash::text, k.balance_after, k.net)
           IS DISTINCT FROM (m.entries, m."lastEntryId", m.hash, m."balanceAfter", m.net))::int
      AS "checkpointsUnlikeTheDatabase"`;

// The rows keep their ids: the identity column is GENERATED ALWAYS, hence OVERRIDING SYSTEM VALUE.
// The columns in the scratch table's order, which is the table's, the hash decoded to its bytes.
const RESTORE = (table: ArchivedTable, columns: string) =>
  `INSERT INTO ${table} OVERRIDING SYSTEM VALUE SELECT ${columns} FROM ${scratch(table)} t ORDER BY t.id`;

/** What the checks count; each is 0 for a sound month. */
export type ScratchFindings = Record<string, number>;

export class ArchiveScratchRepository {
  /** Empty scratch tables for one month, and the session in UTC, so that the files write every time in one zone. */
  static async prepare(db: ClientBase): Promise<void> {
    await db.query(`SET TIME ZONE 'UTC'`);
    await db.query(PREPARE('transactions'));
    await db.query(PREPARE('ledger_entries'));
  }

  static async load(db: ClientBase, table: ArchivedTable, lines: string[]): Promise<void> {
    await db.query(LOAD(table), [`[${lines.join(',')}]`]);
  }

  static async count(db: ClientBase, table: ArchivedTable): Promise<number> {
    return Number((await db.query<{ rows: string }>(COUNT(table))).rows[0].rows);
  }

  static async differencesFromPartition(db: ClientBase, table: ArchivedTable, month: Month): Promise<number> {
    return (await db.query<{ rows: number }>(DIFFERENCES(table, monthPartition(table, month)))).rows[0].rows;
  }

  static async checkpoints(db: ClientBase): Promise<AccountCheckpoint[]> {
    return (await db.query<AccountCheckpoint>(CHECKPOINTS)).rows;
  }

  static async findings(
    db: ClientBase,
    checkpoints: AccountCheckpoint[],
    from: Date,
    to: Date,
  ): Promise<ScratchFindings> {
    return (await db.query<ScratchFindings>(FINDINGS, [JSON.stringify(checkpoints), from, to])).rows[0];
  }

  static async links(db: ClientBase, checkpoints: AccountCheckpoint[], month: Month): Promise<ScratchFindings> {
    return (await db.query<ScratchFindings>(LINKS, [JSON.stringify(checkpoints), month])).rows[0];
  }

  /** Into the live table (its partition for the month must exist); how many rows went in. */
  static async restore(db: ClientBase, table: ArchivedTable): Promise<number> {
    const columns = await MonthPartitionsRepository.columns(db, scratch(table), table, `decode(t.%1$I, 'hex')`);
    return (await db.query(RESTORE(table, columns))).rowCount ?? 0;
  }
}
