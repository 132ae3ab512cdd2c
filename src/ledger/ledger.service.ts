import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, type Repository } from 'typeorm';
import { invalidRequest } from '../common/errors/api-error';
import { type ListPage, type ListRequest, toCursorPage, toPage, withNextCursor } from '../common/paging/page';
import type { User } from '../users/user.entity';
import { LedgerEntry } from './ledger-entry.entity';

@Injectable()
export class LedgerService {
  private readonly entries: Repository<LedgerEntry>;

  constructor(dataSource: DataSource) {
    this.entries = dataSource.getRepository(LedgerEntry);
  }

  /**
   * A registration's starting balance, in the caller's transaction: a movement from the treasury
   * (sql/record_opening_balance.sql), the user's CREDIT and the treasury's DEBIT under a reference
   * of their own, since no transfer is behind them.
   */
  async recordOpeningBalance(manager: EntityManager, user: User): Promise<void> {
    if (user.balance.eq(0)) return;
    await manager.query('SELECT record_opening_balance($1, $2)', [user.id, randomUUID()]);
  }

  /** Newest first, by offset or after a cursor; both served by ix_ledger_entries_user_created. */
  async history(userId: string, request: ListRequest): Promise<ListPage<LedgerEntry>> {
    if (request.kind === 'cursor') return this.historyAfter(userId, request.afterId, request.size);
    const [content, total] = await this.entries.findAndCount({
      where: { userId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: request.page * request.size,
      take: request.size,
    });
    return withNextCursor(toPage(content, request, total), request.sortBy, entryId);
  }

  /**
   * Keyset: the rows strictly after the cursor's row in (created_at, id) order, so entries
   * appended meanwhile (always newer) neither shift nor repeat what follows.
   */
  private async historyAfter(userId: string, afterId: string, size: number): Promise<ListPage<LedgerEntry>> {
    const anchor = await this.entries.existsBy({ id: afterId, userId });
    if (!anchor) throw invalidRequest('cursor does not belong to this ledger');
    const rows = await this.entries
      .createQueryBuilder('e')
      .where('e.user_id = :userId', { userId })
      .andWhere('(e.created_at, e.id) < (SELECT a.created_at, a.id FROM ledger_entries a WHERE a.id = :afterId)', {
        afterId,
      })
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .limit(size + 1)
      .getMany();
    return toCursorPage(rows, { size, sortBy: LEDGER_ORDER }, entryId);
  }
}

const LEDGER_ORDER = 'createdAt';
const entryId = (entry: LedgerEntry) => entry.id;
