import { Injectable } from '@nestjs/common';
import { requireParty, requireSelf } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { invalidRequest } from '../common/errors/api-error';
import { type ListPage, type ListRequest, mapPage, toListPage } from '../common/paging/page';
import { TransactionResponse } from './transaction.dto';
import { type TransactionRow, type TransactionSortKey, TransactionsRepository } from './transactions.repository';

export { TRANSACTION_SORT_KEYS } from './transactions.repository';

/** Reads of transactions: only their two parties may see them. */
@Injectable()
export class TransactionsService {
  constructor(private readonly transactions: TransactionsRepository) {}

  async get(referenceId: string, caller: AuthenticatedUser): Promise<TransactionResponse> {
    return TransactionResponse.of(await this.readable(referenceId, caller));
  }

  /** The row of a transaction the caller is a party to (404 or 403 otherwise). */
  async readable(referenceId: string, caller: AuthenticatedUser): Promise<TransactionRow> {
    const row = await this.transactions.findByReferenceId(referenceId);
    return requireParty(caller, row, `No transaction with reference ID ${referenceId}`);
  }

  /** Sent and received, newest first (or largest first for amount). The caller must be that user. */
  async listFor(
    upiId: string,
    caller: AuthenticatedUser,
    request: ListRequest<TransactionSortKey>,
  ): Promise<ListPage<TransactionResponse>> {
    requireSelf(caller, upiId, 'You may only list your own transactions');
    const found =
      request.kind === 'offset'
        ? await this.transactions.findPage(upiId, request.sortBy, request)
        : await this.transactions.findPageAfter(upiId, request.sortBy, request.afterId, request.size + 1);
    if (!found.rows) throw invalidRequest('cursor does not belong to this list');
    const page = toListPage(request, found.rows, found.total);
    return mapPage(page, TransactionResponse.of);
  }
}
