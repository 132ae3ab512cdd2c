import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ClientBase, Pool, PoolClient } from 'pg';
import type { PageBounds } from '../common/paging/page';
import { PG_POOL } from '../database/pg-pool';
import {
  BROKEN_ENTRIES,
  type BrokenEntry,
  COUNT_ENTRIES,
  LEDGER_ORPHANS,
  type LedgerOrphan,
  UNBALANCED_TRANSACTIONS,
  type UnbalancedTransaction,
} from './ledger-audit-queries';
import type { EntryType } from './ledger-entry.entity';
import {
  BALANCE_HISTORY,
  STATEMENT_BALANCES,
  STATEMENT_BATCH_SIZE,
  STATEMENT_ENTRIES,
  STATEMENT_OWNER_AND_FIRST_BATCH,
  type StatementEntryRow,
  type StatementOwnerRow,
  type StatementRead,
} from './ledger-statement-queries';

/** A ledger_entries row as the reads return it: bigint and numeric as text. */
export interface LedgerEntryRow {
  id: string;
  transactionReferenceId: string;
  entryType: EntryType;
  amount: string;
  balanceBefore: string;
  balanceAfter: string;
  createdAt: Date;
}

/** A page of a ledger with the account it belongs to, as the ownership rules need it. */
export interface OwnedLedgerRows {
  owner: { referenceId: string; upiId: string };
  /** Only an offset page counts the ledger. */
  total: number;
  /** Null when the cursor's entry is not in this ledger. */
  rows: LedgerEntryRow[] | null;
}

type Position = 'offset' | 'after';

/**
 * The one ledger page query, with two predicates for where the page starts: after `offset`
 * entries, or strictly after the entry a cursor names in (created_at, id) order, so that entries
 * appended meanwhile (always newer) neither shift nor repeat what follows. The owner comes in the
 * same statement (one round trip, one snapshot); a user without entries still comes back as one
 * row, with null entry columns. Both are served by ix_ledger_entries_user_created.
 * $1 the owner's reference ID; $2 the offset or the cursor's entry id; $3 how many rows.
 */
function pageQuery(position: Position): string {
  const after = position === 'after';
  const anchor = 'SELECT a.created_at, a.id FROM ledger_entries a WHERE a.id = $2 AND a.user_id = o.id';
  return `
  SELECT o.reference_id AS "ownerReferenceId", o.upi_id AS "ownerUpiId", n.total,
         ${after ? `EXISTS (${anchor})` : 'true'} AS anchored,
         e.id, e.transaction_reference_id AS "transactionReferenceId", e.entry_type AS "entryType", e.amount,
         e.balance_before AS "balanceBefore", e.balance_after AS "balanceAfter", e.created_at AS "createdAt"
  FROM users o
  CROSS JOIN ${after ? '(SELECT null::bigint AS total) n' : 'LATERAL (SELECT count(*) AS total FROM ledger_entries c WHERE c.user_id = o.id) n'}
  LEFT JOIN LATERAL (
    SELECT x.id, x.transaction_reference_id, x.entry_type, x.amount, x.balance_before, x.balance_after, x.created_at
    FROM ledger_entries x WHERE x.user_id = o.id ${after ? `AND (x.created_at, x.id) < (${anchor})` : ''}
    ORDER BY x.created_at DESC, x.id DESC ${after ? '' : 'OFFSET $2 '}LIMIT $3) e ON true
  WHERE o.reference_id = $1
  ORDER BY e.created_at DESC, e.id DESC`;
}

const PAGE_QUERIES: Record<Position, { name: string; text: string }> = {
  offset: { name: 'ledger-owner-page', text: pageQuery('offset') },
  after: { name: 'ledger-owner-after', text: pageQuery('after') },
};

const RECORD_OPENING_BALANCE = 'SELECT record_opening_balance($1, $2)';

interface PageRow extends LedgerEntryRow {
  ownerReferenceId: string;
  ownerUpiId: string;
  total: string | null;
  anchored: boolean;
}

/** ledger_entries: read here; appended only by the money movement functions (sql/*.sql). */
@Injectable()
export class LedgerEntriesRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** An offset page of a user's ledger, newest first; null for an unknown reference ID. */
  findPage(ownerReferenceId: string, page: PageBounds): Promise<OwnedLedgerRows | null> {
    return this.read('offset', [ownerReferenceId, page.page * page.size, page.size]);
  }

  /** Up to `take` entries after the one with this id; null for an unknown reference ID. */
  findPageAfter(ownerReferenceId: string, afterId: string, take: number): Promise<OwnedLedgerRows | null> {
    return this.read('after', [ownerReferenceId, afterId, take]);
  }

  /**
   * A registration's starting balance, in the caller's transaction: a movement from the treasury
   * (sql/record_opening_balance.sql), the user's CREDIT and the treasury's DEBIT under a reference
   * of their own, since no transfer is behind them.
   */
  async recordOpeningBalance(client: PoolClient, userId: string): Promise<void> {
    await client.query(RECORD_OPENING_BALANCE, [userId, randomUUID()]);
  }

  /** The statement's account by reference ID, its balances and its first batch of entries; none: no such account. */
  async findStatementOwner(referenceId: string, from: string, to: string): Promise<StatementOwnerRow[]> {
    const { rows } = await this.pool.query<StatementOwnerRow>({
      name: 'statement-owner-first-batch',
      text: STATEMENT_OWNER_AND_FIRST_BATCH,
      values: [referenceId, from, to],
    });
    return rows;
  }

  /**
   * Balances and entries from one REPEATABLE READ snapshot, so opening + entries = closing even
   * while transfers commit; the entries come through a server-side cursor, never all in memory.
   * Ending the generator early (the client went away) rolls back and releases the connection.
   */
  async *readStatement(userId: string, from: string, to: string): AsyncGenerator<StatementRead> {
    const client = await this.pool.connect();
    let open = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      open = true;
      const params = [userId, from, to];
      const balances = await client.query<{ opening: string; closing: string }>(STATEMENT_BALANCES, params);
      yield { kind: 'balances', balances: balances.rows[0] };
      await client.query(`DECLARE statement_entries NO SCROLL CURSOR FOR ${STATEMENT_ENTRIES}`, params);
      for (;;) {
        const batch = await client.query<StatementEntryRow>(`FETCH ${STATEMENT_BATCH_SIZE} FROM statement_entries`);
        if (batch.rows.length > 0) yield { kind: 'entries', rows: batch.rows };
        if (batch.rows.length < STATEMENT_BATCH_SIZE) break;
      }
      await client.query('COMMIT');
      open = false;
    } finally {
      await release(client, open);
    }
  }

  /** The user's balance at the end of each step (a Postgres interval) overlapping [from, to); the last at `to`. */
  async findBalanceHistory(
    userId: string,
    from: string,
    to: string,
    step: string,
    unit: string,
  ): Promise<{ at: Date; balance: string }[]> {
    const { rows } = await this.pool.query<{ at: Date; balance: string }>(BALANCE_HISTORY, [
      userId,
      from,
      to,
      step,
      unit,
    ]);
    return rows;
  }

  // The audit's reads (src/audit): on the connection that holds its snapshot, the CLI's included.

  static async findBrokenLinks(db: ClientBase): Promise<BrokenEntry[]> {
    return (await db.query<BrokenEntry>(BROKEN_ENTRIES)).rows;
  }

  /** Transactions whose entries do not sum to zero, or that have fewer than two. */
  static async findUnbalancedTransactions(db: ClientBase): Promise<UnbalancedTransaction[]> {
    return (await db.query<UnbalancedTransaction>(UNBALANCED_TRANSACTIONS)).rows;
  }

  static async findOrphans(db: ClientBase): Promise<LedgerOrphan[]> {
    return (await db.query<LedgerOrphan>(LEDGER_ORPHANS)).rows;
  }

  static async count(db: ClientBase): Promise<number> {
    return (await db.query<{ entries: number }>(COUNT_ENTRIES)).rows[0].entries;
  }

  private async read(position: Position, values: unknown[]): Promise<OwnedLedgerRows | null> {
    const { rows } = await this.pool.query<PageRow>({ ...PAGE_QUERIES[position], values });
    if (rows.length === 0) return null;
    const [first] = rows;
    const entries = first.id === null ? [] : rows;
    return {
      owner: { referenceId: first.ownerReferenceId, upiId: first.ownerUpiId },
      total: Number(first.total),
      rows: first.anchored ? entries : null,
    };
  }
}

async function release(client: PoolClient, rollback: boolean): Promise<void> {
  try {
    if (rollback) await client.query('ROLLBACK');
    client.release();
  } catch (error) {
    client.release(error as Error);
  }
}
