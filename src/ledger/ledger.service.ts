import { randomUUID } from 'node:crypto';
import type Big from 'big.js';
import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource, type EntityManager, type Repository } from 'typeorm';
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
import { type LedgerEntryRow, LedgerEntryResponse } from './ledger-entry.dto';
import { LedgerEntry } from './ledger-entry.entity';

/** A page of a ledger with the account it belongs to, as the ownership rules need it. */
export interface OwnedLedgerPage {
  referenceId: string;
  upiId: string;
  page: ListPage<LedgerEntryResponse>;
}

// The owner, the count and the page in one statement (one round trip, one snapshot); a user
// without entries still comes back as one row, with null entry columns.
const OWNER_PAGE = `
  SELECT o.reference_id AS owner_reference_id, o.upi_id AS owner_upi_id, n.total,
         e.id, e.transaction_reference_id, e.entry_type, e.amount, e.balance_before, e.balance_after, e.created_at
  FROM users o
  CROSS JOIN LATERAL (SELECT count(*) AS total FROM ledger_entries c WHERE c.user_id = o.id) n
  LEFT JOIN LATERAL (
    SELECT x.id, x.transaction_reference_id, x.entry_type, x.amount, x.balance_before, x.balance_after, x.created_at
    FROM ledger_entries x WHERE x.user_id = o.id
    ORDER BY x.created_at DESC, x.id DESC OFFSET $2 LIMIT $3) e ON true
  WHERE o.reference_id = $1
  ORDER BY e.created_at DESC, e.id DESC`;

interface OwnerPageRow extends LedgerEntryRow {
  owner_reference_id: string;
  owner_upi_id: string;
  total: string;
}

@Injectable()
export class LedgerService {
  private readonly entries: Repository<LedgerEntry>;

  constructor(
    dataSource: DataSource,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {
    this.entries = dataSource.getRepository(LedgerEntry);
  }

  /**
   * An offset page of a ledger in its response form, with the account it belongs to; null for an
   * unknown reference ID. The caller checks the owner before answering.
   */
  async ownedPage(referenceId: string, request: PageRequest): Promise<OwnedLedgerPage | null> {
    const { rows } = await this.pool.query<OwnerPageRow>({
      name: 'ledger-owner-page',
      text: OWNER_PAGE,
      values: [referenceId, request.page * request.size, request.size],
    });
    if (rows.length === 0) return null;
    const [first] = rows;
    const referenceIdOfOwner = first.owner_reference_id;
    const entries = first.id === null ? [] : rows;
    const page = withNextCursor(toPage(entries, request, Number(first.total)), LEDGER_ORDER, entryId);
    const content = entries.map((row) => LedgerEntryResponse.fromRow(row, referenceIdOfOwner));
    return { referenceId: referenceIdOfOwner, upiId: first.owner_upi_id, page: { ...page, content } };
  }

  /**
   * A registration's starting balance, in the caller's transaction: a movement from the treasury
   * (sql/record_opening_balance.sql), the user's CREDIT and the treasury's DEBIT under a reference
   * of their own, since no transfer is behind them.
   */
  async recordOpeningBalance(manager: EntityManager, user: { id: string; balance: Big }): Promise<void> {
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
const entryId = (entry: { id: string }) => entry.id;
