import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, type Repository } from 'typeorm';
import { type Page, type PageBounds, toPage } from '../common/paging/page';
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

  /** Newest first; served by ix_ledger_entries_user_created. */
  async history(userId: string, bounds: PageBounds): Promise<Page<LedgerEntry>> {
    const [content, total] = await this.entries.findAndCount({
      where: { userId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: bounds.page * bounds.size,
      take: bounds.size,
    });
    return toPage(content, bounds, total);
  }
}
