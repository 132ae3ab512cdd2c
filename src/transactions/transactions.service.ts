import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { requireParty, requireSelf } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { type Page, type PageRequest, toPage } from '../common/paging/page';
import { Transaction } from './transaction.entity';

export const TRANSACTION_SORT_KEYS = ['createdAt', 'amount'] as const;
export type TransactionSortKey = (typeof TRANSACTION_SORT_KEYS)[number];

const SORT_COLUMNS: Record<TransactionSortKey, string> = { createdAt: 't.createdAt', amount: 't.amount' };

/** Reads of transactions: only their two parties may see them. */
@Injectable()
export class TransactionsService {
  private readonly transactions: Repository<Transaction>;

  constructor(dataSource: DataSource) {
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
    request: PageRequest<TransactionSortKey>,
  ): Promise<Page<Transaction>> {
    requireSelf(caller, upiId, 'You may only list your own transactions');
    const [content, total] = await this.transactions
      .createQueryBuilder('t')
      .innerJoin('users', 'u', 'lower(u.upi_id) = lower(:upiId)', { upiId })
      .where('(t.sender_id = u.id OR t.receiver_id = u.id)')
      .orderBy(SORT_COLUMNS[request.sortBy], 'DESC')
      .addOrderBy('t.id', 'DESC')
      .offset(request.page * request.size)
      .limit(request.size)
      .getManyAndCount();
    return toPage(content, request, total);
  }
}
