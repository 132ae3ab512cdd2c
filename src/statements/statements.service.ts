import { Inject, Injectable } from '@nestjs/common';
import type Big from 'big.js';
import type { Pool, PoolClient } from 'pg';
import { Money } from '../common/money/money';
import { PG_POOL } from '../database/pg-pool';
import type { BalanceInterval, StatementRange } from './statement-query';

export interface StatementEntry {
  createdAt: Date;
  transactionReferenceId: string;
  type: string;
  entryType: string;
  counterpartyUpiId: string | null;
  /** The numeric(19,4) columns' text, exactly four decimals. */
  amount: string;
  balanceAfter: string;
  note: string | null;
}

export interface StatementBalances {
  openingBalance: Big;
  closingBalance: Big;
}

export interface BalancePoint {
  at: Date;
  balance: Big;
}

/**
 * What a statement reads: one item with the balances, then the entries in batches. The first
 * item comes before anything is sent, so a database failure is still an ordinary error answer.
 */
export type StatementChunk =
  { kind: 'balances'; balances: StatementBalances } | { kind: 'entries'; entries: StatementEntry[] };

const BATCH_SIZE = 500;

// Opening balances written at registration have no transaction behind them: money that
// entered the system, which is what a deposit is, and what they become once the treasury
// records their other side.
const OPENING_BALANCE_TYPE = 'DEPOSIT';

// The balance at an instant: balance_after of the user's last entry before it, one probe of
// ix_ledger_entries_user_created.
const balanceBefore = (instant: string, user = '$1') => `COALESCE((
  SELECT b.balance_after FROM ledger_entries b
  WHERE b.user_id = ${user} AND b.created_at < ${instant}
  ORDER BY b.created_at DESC, b.id DESC LIMIT 1), 0)::text`;

const entriesOf = (user: string) => `
  SELECT e.created_at, e.transaction_reference_id, COALESCE(t.type, '${OPENING_BALANCE_TYPE}') AS type, e.entry_type,
         CASE WHEN t.id IS NULL THEN NULL
              WHEN e.entry_type = 'DEBIT' THEN t.receiver_upi_id ELSE t.sender_upi_id END AS counterparty_upi_id,
         e.amount::text AS amount, e.balance_after::text AS balance_after, t.note, e.id AS entry_id
  FROM ledger_entries e LEFT JOIN transactions t ON t.id = e.transaction_id
  WHERE e.user_id = ${user} AND e.created_at >= $2 AND e.created_at < $3
  ORDER BY e.created_at, e.id`;

const ENTRIES = entriesOf('$1');

// The owner, both balances and up to one batch of entries (plus one, to tell whether more follow)
// in one statement: one round trip, one snapshot. A user without entries in the period still
// comes back as one row, with null entry columns.
const OWNER_AND_FIRST_BATCH = `
  SELECT o.id AS owner_id, o.reference_id AS owner_reference_id, o.upi_id AS owner_upi_id,
         ${balanceBefore('$2', 'o.id')} AS opening, ${balanceBefore('$3', 'o.id')} AS closing, s.*
  FROM users o
  LEFT JOIN LATERAL (${entriesOf('o.id')} LIMIT ${BATCH_SIZE + 1}) s ON true
  WHERE o.reference_id = $1
  ORDER BY s.created_at, s.entry_id`;

/**
 * A statement's account, with the statement itself when it fits in one batch; entries is null
 * when the period holds more, to be read through statement() instead.
 */
export interface OwnedStatement {
  id: string;
  referenceId: string;
  upiId: string;
  balances: StatementBalances;
  entries: StatementEntry[] | null;
}

interface OwnerRow extends Partial<EntryRow> {
  owner_id: string;
  owner_reference_id: string;
  owner_upi_id: string;
  opening: string;
  closing: string;
}

interface EntryRow {
  created_at: Date;
  transaction_reference_id: string;
  type: string;
  entry_type: string;
  counterparty_upi_id: string | null;
  amount: string;
  balance_after: string;
  note: string | null;
  entry_id: string;
}

/** Statements and balance history, read from the ledger's balance_after. */
@Injectable()
export class StatementsService {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** The account with this reference ID (null if none) and, for a period of one batch or less, its statement. */
  async ownedStatement(referenceId: string, range: StatementRange): Promise<OwnedStatement | null> {
    const { rows } = await this.pool.query<OwnerRow>({
      name: 'statement-owner-first-batch',
      text: OWNER_AND_FIRST_BATCH,
      values: [referenceId, range.from.toISOString(), range.to.toISOString()],
    });
    if (rows.length === 0) return null;
    const [first] = rows;
    const entries = first.entry_id == null ? [] : (rows as EntryRow[]);
    return {
      id: first.owner_id,
      referenceId: first.owner_reference_id,
      upiId: first.owner_upi_id,
      balances: { openingBalance: new Money(first.opening), closingBalance: new Money(first.closing) },
      entries: entries.length > BATCH_SIZE ? null : entries.map(toEntry),
    };
  }

  /**
   * Balances and entries from one REPEATABLE READ snapshot, so opening + entries = closing even
   * while transfers commit; the entries come through a server-side cursor, never all in memory.
   */
  async *statement(userId: string, range: StatementRange): AsyncGenerator<StatementChunk> {
    const client = await this.pool.connect();
    let open = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      open = true;
      const params = [userId, range.from.toISOString(), range.to.toISOString()];
      const balances = await client.query<{ opening: string; closing: string }>(
        `SELECT ${balanceBefore('$2')} AS opening, ${balanceBefore('$3')} AS closing`,
        params,
      );
      const { opening, closing } = balances.rows[0];
      yield {
        kind: 'balances',
        balances: { openingBalance: new Money(opening), closingBalance: new Money(closing) },
      };
      await client.query(`DECLARE statement_entries NO SCROLL CURSOR FOR ${ENTRIES}`, params);
      yield* this.fetchAll(client);
      await client.query('COMMIT');
      open = false;
    } finally {
      // Also reached when the HTTP client goes away mid-stream (the generator is returned early):
      // the snapshot is closed and the connection goes back to the pool either way.
      await release(client, open);
    }
  }

  /** The balance at the end of each hour or day (UTC) overlapping [from, to); the last one at `to`. */
  async balanceHistory(userId: string, range: StatementRange, interval: BalanceInterval): Promise<BalancePoint[]> {
    const rows = (
      await this.pool.query<{ at: Date; balance: string }>(
        `SELECT p.at, ${balanceBefore('p.at')} AS balance
         FROM (
           SELECT least(g + $4::interval, $3::timestamptz) AS at
           FROM generate_series(date_trunc($5, $2::timestamptz, 'UTC'), $3::timestamptz, $4::interval) g
           WHERE g < $3::timestamptz
         ) p
         ORDER BY p.at`,
        [userId, range.from.toISOString(), range.to.toISOString(), INTERVAL_STEP[interval], interval],
      )
    ).rows;
    return rows.map((row) => ({ at: row.at, balance: new Money(row.balance) }));
  }

  private async *fetchAll(client: PoolClient): AsyncGenerator<StatementChunk> {
    for (;;) {
      const batch = await client.query<EntryRow>(`FETCH ${BATCH_SIZE} FROM statement_entries`);
      if (batch.rows.length > 0) yield { kind: 'entries', entries: batch.rows.map(toEntry) };
      if (batch.rows.length < BATCH_SIZE) return;
    }
  }
}

// A day is 24 hours in UTC; a fixed step keeps the session time zone out of the series.
const INTERVAL_STEP: Record<BalanceInterval, string> = { hour: '1 hour', day: '24 hours' };

async function release(client: PoolClient, rollback: boolean): Promise<void> {
  try {
    if (rollback) await client.query('ROLLBACK');
    client.release();
  } catch (error) {
    // A connection that cannot even roll back is not handed to the next request.
    client.release(error as Error);
  }
}

function toEntry(row: EntryRow): StatementEntry {
  return {
    createdAt: row.created_at,
    transactionReferenceId: row.transaction_reference_id,
    type: row.type,
    entryType: row.entry_type,
    counterpartyUpiId: row.counterparty_upi_id,
    amount: row.amount,
    balanceAfter: row.balance_after,
    note: row.note,
  };
}
