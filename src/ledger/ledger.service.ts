import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, type Repository } from 'typeorm';
import { Money } from '../common/money/money';
import { type Page, type PageBounds, toPage } from '../common/paging/page';
import type { User } from '../users/user.entity';
import { EntryType, LedgerEntry } from './ledger-entry.entity';

@Injectable()
export class LedgerService {
  private readonly entries: Repository<LedgerEntry>;

  constructor(dataSource: DataSource) {
    this.entries = dataSource.getRepository(LedgerEntry);
  }

  /**
   * A registration's starting balance, as a CREDIT in the caller's transaction. It has
   * no transfer behind it, so its transactionReferenceId is a reference of its own.
   */
  async recordOpeningBalance(manager: EntityManager, user: User): Promise<void> {
    if (user.balance.eq(0)) return;
    await manager.getRepository(LedgerEntry).insert({
      userId: user.id,
      transactionReferenceId: randomUUID(),
      entryType: EntryType.Credit,
      amount: user.balance,
      balanceBefore: new Money(0),
      balanceAfter: user.balance,
    });
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
