import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
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
           t.original_reference_id AS "originalReferenceId", t.reversed_amount AS "reversedAmount"`;

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
    SELECT x.id, x.${key} FROM transactions x, owner WHERE x.${party} = owner.id ${start}
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
      SELECT k.id FROM (${side('sender_id')} UNION ALL ${side('receiver_id')}) k
      ORDER BY k.${key} DESC, k.id DESC ${after ? '' : 'OFFSET $2 '}LIMIT $3) p ON true
    LEFT JOIN transactions t ON t.id = p.id
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
