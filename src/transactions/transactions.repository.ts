import { Inject, Injectable } from '@nestjs/common';
import type { ClientBase, Pool } from 'pg';
import type { PageBounds } from '../common/paging/page';
import { PG_POOL } from '../database/pg-pool';
import type { TransactionFields } from './transaction.dto';

export const TRANSACTION_SORT_KEYS = ['createdAt', 'amount'] as const;
export type TransactionSortKey = (typeof TRANSACTION_SORT_KEYS)[number];

const SORT_COLUMNS: Record<TransactionSortKey, string> = { createdAt: 'created_at', amount: 'amount' };

/** A transactions row as the reads return it: the answer's fields, bigint and numeric as text. */
export type TransactionRow = Required<
  Omit<TransactionFields, 'transactionId' | 'createdAt' | 'paymentRequestReferenceId'>
> & { id: string; createdAt: Date };

const COLUMNS = `t.id, t.reference_id AS "referenceId", t.sender_upi_id AS "senderUpiId",
           t.receiver_upi_id AS "receiverUpiId", t.amount, t.status, t.type, t.note, t.created_at AS "createdAt",
           t.original_reference_id AS "originalReferenceId", t.reversed_amount AS "reversedAmount",
           t.hold_reference_id AS "holdReferenceId"`;

const BY_REFERENCE = `SELECT ${COLUMNS} FROM transactions t WHERE t.reference_id = $1`;

/** Where a page starts: after `offset` rows, or strictly after the row a cursor names. */
type Position = 'offset' | 'after';

/**
 * The one list query, with two predicates for where the page starts. Sent and received are two
 * ordered index ranges, each read no further than the page's end and merged with UNION ALL (a
 * transfer is never to oneself, so nothing appears twice); an OR would sort the user's whole
 * history. An offset page counts the list in the same statement; a cursor page does not (it would
 * cost a scan of the whole list) and finds no owner when the cursor's row is not one of theirs.
 * Either way one row comes back even for an empty page, with null transaction columns.
 * $1 the UPI ID; $2 the offset or the cursor's transaction id; $3 how many rows.
 */
function listQuery(key: string, position: Position): string {
  const after = position === 'after';
  const start = after ? `AND (x.${key}, x.id) < (SELECT a.${key}, a.id FROM transactions a WHERE a.id = $2)` : '';
  const reach = after ? '$3' : '$2::bigint + $3::bigint';
  const side = (party: string) => `(
    SELECT x.id, x.created_at AS at, x.${key} FROM transactions x, owner WHERE x.${party} = owner.id ${start}
    ORDER BY x.${key} DESC, x.id DESC LIMIT ${reach})`;
  const count = (party: string) => `(SELECT count(*) FROM transactions c, owner WHERE c.${party} = owner.id)`;
  const anchor = after
    ? 'AND EXISTS (SELECT 1 FROM transactions a WHERE a.id = $2 AND (a.sender_id = u.id OR a.receiver_id = u.id))'
    : '';
  return `
    WITH owner AS (SELECT u.id FROM users u WHERE lower(u.upi_id) = lower($1) ${anchor})
    SELECT ${after ? 'null' : `${count('sender_id')} + ${count('receiver_id')}`} AS total,
           EXISTS (SELECT 1 FROM owner) AS owned,
           ${COLUMNS}
    FROM (SELECT 1) one
    LEFT JOIN LATERAL (
      SELECT k.id, k.at FROM (${side('sender_id')} UNION ALL ${side('receiver_id')}) k
      ORDER BY k.${key} DESC, k.id DESC ${after ? '' : 'OFFSET $2 '}LIMIT $3) p ON true
    LEFT JOIN transactions t ON t.id = p.id AND t.created_at = p.at
    ORDER BY t.${key} DESC, t.id DESC`;
}

/** Each (sort key, position) as a named statement: parsed and planned once per connection. */
const LIST_QUERIES = Object.fromEntries(
  TRANSACTION_SORT_KEYS.flatMap((key) =>
    (['offset', 'after'] as const).map((position) => [
      `${key}:${position}`,
      { name: `transactions-${position}-${key}`, text: listQuery(SORT_COLUMNS[key], position) },
    ]),
  ),
) as Record<`${TransactionSortKey}:${Position}`, { name: string; text: string }>;

/** A transaction whose row disagrees with its hash, its chained ledger entries or its reversals (the audit). */
export interface BrokenTransaction {
  transactionReferenceId: string;
  transactionId: string;
  type: string;
  reasons: string[];
}

/** A transaction whose sender or receiver account is missing (the audit). */
export interface TransactionOrphan {
  kind: 'transaction';
  id: string;
  missing: 'sender' | 'receiver';
  missingId: string;
}

// Each transaction against what it cannot change without leaving a trace:
// - its content_hash (written on insert by a trigger over the immutable fields; bytes, compared as
//   the function's hex);
// - its ledger entries, which are hash-chained per account: the receiver's CREDITs and the
//   sender's DEBITs (the treasury's rows, for a deposit) each add up to the amount, under its
//   reference. Not their time: rows written by the first-round transfer function stamped the
//   transaction and its entries separately, so only the hash covers a transaction's time;
// - for a TRANSFER, the REVERSALs that name it: reversed_amount is their sum and status the one
//   that sum implies; a REVERSAL mirrors the parties of the TRANSFER it names.
// Not-null guards on every comparison: a missing side is a finding, never a silent NULL.
const BROKEN_TRANSACTIONS = `
  WITH sides AS (
    SELECT t.id,
      coalesce(sum(l.amount) FILTER (WHERE l.entry_type = 'CREDIT' AND l.user_id = t.receiver_id), 0) AS credited,
      -- A deposit's DEBITs are the treasury's, a hold capture's the holds account's (both ids <= 0).
      coalesce(sum(l.amount) FILTER (WHERE l.entry_type = 'DEBIT' AND (l.user_id = t.sender_id
        OR ((t.type = 'DEPOSIT' OR t.hold_reference_id IS NOT NULL) AND l.user_id <= 0))), 0) AS debited,
      count(*) FILTER (WHERE l.id IS NOT NULL AND l.transaction_reference_id <> t.reference_id) AS misnamed
    FROM transactions t LEFT JOIN ledger_entries l ON l.transaction_id = t.id
    GROUP BY t.id),
  reversals AS (
    SELECT r.original_transaction_id AS id, sum(r.amount) AS reversed
    FROM transactions r WHERE r.type = 'REVERSAL' AND r.original_transaction_id IS NOT NULL
    GROUP BY r.original_transaction_id),
  checked AS (
    SELECT t.id, t.reference_id, t.type, array_remove(ARRAY[
        CASE WHEN encode(t.content_hash, 'hex') IS DISTINCT FROM transaction_content_hash(t.id, t.reference_id, t.sender_id,
               t.receiver_id, t.sender_upi_id, t.receiver_upi_id, t.amount, t.type, t.note, t.original_transaction_id,
               t.original_reference_id, t.created_at)
             THEN 'hash does not match the transaction''s parties, amount, type, note, original and time' END,
        CASE WHEN s.credited <> t.amount
             THEN 'the receiver''s CREDIT entries do not add up to the amount' END,
        CASE WHEN s.debited <> t.amount
             THEN 'the sender''s DEBIT entries do not add up to the amount' END,
        CASE WHEN s.misnamed > 0 THEN 'its ledger entries carry another reference' END,
        CASE WHEN t.reversed_amount <> coalesce(v.reversed, 0)
             THEN 'reversedAmount is not the sum of its reversals' END,
        CASE WHEN t.status IS DISTINCT FROM CASE WHEN coalesce(v.reversed, 0) = 0 THEN 'COMPLETED'
                                                  WHEN v.reversed = t.amount THEN 'REVERSED'
                                                  ELSE 'PARTIALLY_REVERSED' END
             THEN 'status is not the one its reversals imply' END,
        CASE WHEN coalesce(v.reversed, 0) > t.amount THEN 'its reversals return more than the amount' END,
        CASE WHEN v.reversed IS NOT NULL AND t.type <> 'TRANSFER' THEN 'reversals name a transaction that is not a TRANSFER' END,
        CASE WHEN t.type = 'REVERSAL' AND (o.id IS NULL OR o.sender_id <> t.receiver_id OR o.receiver_id <> t.sender_id
                                           OR o.reference_id IS DISTINCT FROM t.original_reference_id)
             THEN 'a reversal that does not mirror the transfer it names' END,
        CASE WHEN t.type <> 'REVERSAL' AND (t.original_transaction_id IS NOT NULL OR t.original_reference_id IS NOT NULL)
             THEN 'names an original but is not a REVERSAL' END], NULL) AS reasons
    FROM transactions t
    JOIN sides s ON s.id = t.id
    LEFT JOIN reversals v ON v.id = t.id
    LEFT JOIN transactions o ON o.id = t.original_transaction_id)
  SELECT reference_id::text AS "transactionReferenceId", id::text AS "transactionId", type, reasons
  FROM checked WHERE cardinality(reasons) > 0
  ORDER BY id`;

// What the dropped foreign keys used to refuse (migrations/1764001100000-lean-money-movements.ts).
const TRANSACTION_ORPHANS = `
  SELECT kind, id::text AS id, missing, missing_id::text AS "missingId" FROM (
    SELECT 'transaction' AS kind, t.id, 'sender' AS missing, t.sender_id AS missing_id FROM transactions t
    WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.sender_id)
    UNION ALL
    SELECT 'transaction', t.id, 'receiver', t.receiver_id FROM transactions t
    WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.receiver_id)
  ) o
  ORDER BY o.id, missing`;

/** A page's rows; null when a cursor's transaction is not one of the user's. Only an offset page counts. */
export interface TransactionRows {
  total: number;
  rows: TransactionRow[] | null;
}

interface ListRow extends TransactionRow {
  total: string | null;
  owned: boolean;
}

/** transactions: read here; written only by the money movement functions (sql/*.sql). */
@Injectable()
export class TransactionsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async findByReferenceId(referenceId: string): Promise<TransactionRow | null> {
    const { rows } = await this.pool.query<TransactionRow>(BY_REFERENCE, [referenceId]);
    return rows[0] ?? null;
  }

  /** An offset page of a user's transactions, sent and received, with the count of all of them. */
  async findPage(upiId: string, sortBy: TransactionSortKey, page: PageBounds): Promise<TransactionRows> {
    const rows = await this.list(upiId, sortBy, 'offset', [page.page * page.size, page.size]);
    return { total: Number(rows[0].total), rows: withoutEmptyRow(rows) };
  }

  /** Up to `take` transactions after the one with this id; no rows when that one is not the user's. */
  async findPageAfter(
    upiId: string,
    sortBy: TransactionSortKey,
    afterId: string,
    take: number,
  ): Promise<TransactionRows> {
    const rows = await this.list(upiId, sortBy, 'after', [afterId, take]);
    return { total: 0, rows: rows[0].owned ? withoutEmptyRow(rows) : null };
  }

  // The audit's reads (src/audit): on the connection that holds its snapshot, the CLI's included.

  static async findBroken(db: ClientBase): Promise<BrokenTransaction[]> {
    return (await db.query<BrokenTransaction>(BROKEN_TRANSACTIONS)).rows;
  }

  static async findOrphans(db: ClientBase): Promise<TransactionOrphan[]> {
    return (await db.query<TransactionOrphan>(TRANSACTION_ORPHANS)).rows;
  }

  private async list(upiId: string, sortBy: TransactionSortKey, position: Position, values: unknown[]) {
    const { rows } = await this.pool.query<ListRow>({
      ...LIST_QUERIES[`${sortBy}:${position}`],
      values: [upiId, ...values],
    });
    return rows;
  }
}

/** The list query's single row of an empty page carries no transaction. */
function withoutEmptyRow<T extends { id: string | null }>(rows: T[]): T[] {
  return rows[0].id === null ? [] : rows;
}
