import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { requireParty, requireSelf } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { invalidRequest } from '../common/errors/api-error';
import { type ListPage, type ListRequest, toCursorPage, toPage, withNextCursor } from '../common/paging/page';
import { Transaction } from './transaction.entity';

export const TRANSACTION_SORT_KEYS = ['createdAt', 'amount'] as const;
export type TransactionSortKey = (typeof TRANSACTION_SORT_KEYS)[number];

const SORT_COLUMNS: Record<TransactionSortKey, string> = { createdAt: 't.createdAt', amount: 't.amount' };
const KEYSET_COLUMNS: Record<TransactionSortKey, string> = { createdAt: 'created_at', amount: 'amount' };

/** Reads of transactions: only their two parties may see them. */
@Injectable()
export class TransactionsService {
  private readonly transactions: Repository<Transaction>;

  constructor(private readonly dataSource: DataSource) {
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
  ): Promise<ListPage<Transaction>> {
    requireSelf(caller, upiId, 'You may only list your own transactions');
    if (request.kind === 'cursor') return this.listAfter(upiId, request);
    const [content, total] = await this.transactions
      .createQueryBuilder('t')
      .innerJoin('users', 'u', 'lower(u.upi_id) = lower(:upiId)', { upiId })
      .where('(t.sender_id = u.id OR t.receiver_id = u.id)')
      .orderBy(SORT_COLUMNS[request.sortBy], 'DESC')
      .addOrderBy('t.id', 'DESC')
      .offset(request.page * request.size)
      .limit(request.size)
      .getManyAndCount();
    return withNextCursor(toPage(content, request, total), request.sortBy, transactionId);
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

const transactionId = (transaction: Transaction) => transaction.id;
