import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource, type Repository } from 'typeorm';
import { requireParty, requireSelf } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { invalidRequest } from '../common/errors/api-error';
import {
  type ListPage,
  type ListRequest,
  type PageRequest,
  toCursorPage,
  toPage,
  withNextCursor,
} from '../common/paging/page';
import { PG_POOL } from '../database/pg-pool';
import { TransactionResponse } from './transaction.dto';
import { Transaction } from './transaction.entity';

export const TRANSACTION_SORT_KEYS = ['createdAt', 'amount'] as const;
export type TransactionSortKey = (typeof TRANSACTION_SORT_KEYS)[number];

const SORT_COLUMNS: Record<TransactionSortKey, string> = { createdAt: 't.createdAt', amount: 't.amount' };
const KEYSET_COLUMNS: Record<TransactionSortKey, string> = { createdAt: 'created_at', amount: 'amount' };

/**
 * The count and an offset page in one statement. Sent and received are two ordered index ranges,
 * each read no further than the page's end and merged with UNION ALL (a transfer is never to
 * oneself, so nothing appears twice); an OR would sort the user's whole history. A user without
 * transactions still comes back as one row, with null transaction columns.
 */
function offsetPageQuery(key: string): string {
  const side = (party: string) => `(
    SELECT x.id, x.${key} FROM transactions x, owner WHERE x.${party} = owner.id
    ORDER BY x.${key} DESC, x.id DESC LIMIT $2::bigint + $3::bigint)`;
  const count = (party: string) => `(SELECT count(*) FROM transactions c, owner WHERE c.${party} = owner.id)`;
  return `
    WITH owner AS (SELECT u.id FROM users u WHERE lower(u.upi_id) = lower($1))
    SELECT ${count('sender_id')} + ${count('receiver_id')} AS total,
           t.id, t.reference_id, t.sender_upi_id, t.receiver_upi_id, t.amount, t.status, t.type, t.note,
           t.created_at, t.original_reference_id, t.reversed_amount
    FROM (SELECT 1) one
    LEFT JOIN LATERAL (
      SELECT k.id FROM (${side('sender_id')} UNION ALL ${side('receiver_id')}) k
      ORDER BY k.${key} DESC, k.id DESC OFFSET $2 LIMIT $3) p ON true
    LEFT JOIN transactions t ON t.id = p.id
    ORDER BY t.${key} DESC, t.id DESC`;
}

const OFFSET_PAGE_QUERIES = Object.fromEntries(
  TRANSACTION_SORT_KEYS.map((key) => [
    key,
    { name: `transactions-page-${key}`, text: offsetPageQuery(KEYSET_COLUMNS[key]) },
  ]),
) as Record<TransactionSortKey, { name: string; text: string }>;

interface TransactionRow {
  total: string;
  id: string;
  reference_id: string;
  sender_upi_id: string;
  receiver_upi_id: string;
  amount: string;
  status: string;
  type: string;
  note: string | null;
  created_at: Date;
  original_reference_id: string | null;
  reversed_amount: string;
}

/** Reads of transactions: only their two parties may see them. */
@Injectable()
export class TransactionsService {
  private readonly transactions: Repository<Transaction>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {
    this.transactions = dataSource.getRepository(Transaction);
  }

  async get(referenceId: string, caller: AuthenticatedUser): Promise<Transaction> {
    const transaction = await this.transactions.findOneBy({ referenceId });
    return requireParty(caller, transaction, `No transaction with reference ID ${referenceId}`);
  }

  /** Sent and received, newest first (or largest first for amount). The caller must be that user. */
  async listFor(
    upiId: string,
    caller: AuthenticatedUser,
    request: ListRequest<TransactionSortKey>,
  ): Promise<ListPage<TransactionResponse>> {
    requireSelf(caller, upiId, 'You may only list your own transactions');
    if (request.kind === 'offset') return this.offsetPage(upiId, request);
    const page = await this.listAfter(upiId, request);
    return { ...page, content: page.content.map(TransactionResponse.of) };
  }

  private async offsetPage(upiId: string, request: PageRequest<TransactionSortKey>) {
    const { rows } = await this.pool.query<TransactionRow>({
      ...OFFSET_PAGE_QUERIES[request.sortBy],
      values: [upiId, request.page * request.size, request.size],
    });
    const content = rows[0].id === null ? [] : rows;
    const page = withNextCursor(toPage(content, request, Number(rows[0].total)), request.sortBy, transactionId);
    return { ...page, content: content.map(responseOf) };
  }

  /**
   * Keyset after the cursor's transaction. Sent and received are read as two ordered index
   * ranges merged with UNION ALL (an OR would sort the user's whole history on every page).
   */
  private async listAfter(
    upiId: string,
    request: Extract<ListRequest<TransactionSortKey>, { kind: 'cursor' }>,
  ): Promise<ListPage<Transaction>> {
    const [owner] = (await this.dataSource.query(
      `SELECT u.id FROM users u JOIN transactions a ON a.id = $2 AND (a.sender_id = u.id OR a.receiver_id = u.id)
       WHERE lower(u.upi_id) = lower($1)`,
      [upiId, request.afterId],
    )) as { id: string }[];
    if (!owner) throw invalidRequest('cursor does not belong to this list');
    const key = KEYSET_COLUMNS[request.sortBy];
    const side = (party: string) => `(
      SELECT x.id, x.${key} FROM transactions x
      WHERE x.${party} = :userId AND (x.${key}, x.id) < (SELECT a.${key}, a.id FROM transactions a WHERE a.id = :afterId)
      ORDER BY x.${key} DESC, x.id DESC LIMIT :take)`;
    const rows = await this.transactions
      .createQueryBuilder('t')
      .where(
        `t.id IN (SELECT k.id FROM (${side('sender_id')} UNION ALL ${side('receiver_id')}) k
         ORDER BY k.${key} DESC, k.id DESC LIMIT :take)`,
        { userId: owner.id, afterId: request.afterId, take: request.size + 1 },
      )
      .orderBy(SORT_COLUMNS[request.sortBy], 'DESC')
      .addOrderBy('t.id', 'DESC')
      .getMany();
    return toCursorPage(rows, request, transactionId);
  }
}

const transactionId = (transaction: { id: string }) => transaction.id;

function responseOf(row: TransactionRow): TransactionResponse {
  return TransactionResponse.from({
    transactionId: row.id,
    referenceId: row.reference_id,
    senderUpiId: row.sender_upi_id,
    receiverUpiId: row.receiver_upi_id,
    amount: row.amount,
    status: row.status,
    type: row.type,
    note: row.note,
    createdAt: row.created_at.toISOString(),
    originalReferenceId: row.original_reference_id,
    reversedAmount: row.reversed_amount,
  });
}
