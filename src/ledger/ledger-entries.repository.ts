import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ClientBase, Pool, PoolClient } from 'pg';
import type { PageBounds } from '../common/paging/page';
import { PG_POOL } from '../database/pg-pool';
import { inTransaction } from '../database/in-transaction';
import type { EntryType } from './entry-type';

// The ledger's part of the tamper-evidence audit (src/audit runs them in one snapshot): each
// account's hash chain and running balance, each transaction's entries summing to zero, and
// entries naming an account or a transaction that does not exist.

/** An entry whose link in its account's chain does not hold. */
export interface BrokenEntry {
  entryId: string;
  accountId: string;
  /** Null when the account itself is missing (listed in orphans too). */
  upiId: string | null;
  reasons: string[];
}

export interface UnbalancedTransaction {
  transactionReferenceId: string;
  sum: string;
  entries: number;
}

/** An entry whose account or transaction is missing (no foreign key stands guard: the movements write only rows they hold). */
export interface LedgerOrphan {
  kind: 'ledger-entry';
  id: string;
  missing: 'account' | 'transaction';
  missingId: string;
}

/** An entry's amount with its sign: a CREDIT adds, a DEBIT takes away. */
export const SIGNED_AMOUNT = `CASE l.entry_type WHEN 'CREDIT' THEN l.amount ELSE -l.amount END`;

// Each link is checked against the stored hash of the entry before it, so one changed, deleted or
// moved entry breaks exactly the links around it, and the rest of the chain still verifies. The
// entry before an account's first in a month may be archived (npm run archive): then it is that
// month's head at the cut, kept in ledger_checkpoints, which is looked up only where the month
// changes along the chain. Hashes are compared as hex, as ledger_entry_hash and the checkpoints
// have them (the entries hold the bytes).
const BROKEN_ENTRIES = `
  SELECT c.id::text AS "entryId", c.user_id::text AS "accountId", u.upi_id AS "upiId", array_remove(ARRAY[
      CASE WHEN c.hash IS DISTINCT FROM c.expected_hash
           THEN 'hash does not match the entry and the previous entry of its account' END,
      CASE WHEN c.balance_before <> c.previous_after
           THEN 'balanceBefore is not the previous entry''s balanceAfter' END,
      CASE WHEN c.balance_after <> c.balance_before + c.signed
           THEN 'balanceAfter is not balanceBefore moved by the amount' END], NULL) AS reasons
  FROM (
    SELECT e.id, e.user_id, e.hash, e.balance_before, e.balance_after, e.signed,
      coalesce(k.balance_after, e.previous_after) AS previous_after,
      ledger_entry_hash(coalesce(k.hash, e.previous_hash), e.user_id, e.transaction_reference_id, e.entry_type,
                        e.amount, e.balance_before, e.balance_after, e.created_at) AS expected_hash
    FROM (
      SELECT l.id, l.user_id, encode(l.hash, 'hex') AS hash, l.balance_before, l.balance_after, ${SIGNED_AMOUNT} AS signed,
        l.transaction_reference_id, l.entry_type, l.amount, l.created_at,
        lag(l.id) OVER w AS previous_id, lag(l.created_at) OVER w AS previous_at,
        encode(lag(l.hash) OVER w, 'hex') AS previous_hash, lag(l.balance_after, 1, 0::numeric) OVER w AS previous_after
      FROM ledger_entries l
      WINDOW w AS (PARTITION BY l.user_id ORDER BY l.id)
    ) e
    LEFT JOIN LATERAL (
      SELECT k.hash::text AS hash, k.balance_after FROM ledger_checkpoints k
      WHERE (e.previous_id IS NULL
             OR date_trunc('month', e.previous_at, 'UTC') <> date_trunc('month', e.created_at, 'UTC'))
        AND k.user_id = e.user_id AND k.last_entry_id < e.id AND k.last_entry_id > coalesce(e.previous_id, 0)
      ORDER BY k.last_entry_id DESC LIMIT 1
    ) k ON true
  ) c LEFT JOIN users u ON u.id = c.user_id
  WHERE c.hash IS DISTINCT FROM c.expected_hash OR c.balance_before <> c.previous_after
     OR c.balance_after <> c.balance_before + c.signed
  ORDER BY c.id`;

const UNBALANCED_TRANSACTIONS = `
  SELECT l.transaction_reference_id::text AS "transactionReferenceId", sum(${SIGNED_AMOUNT})::text AS sum,
         count(*)::int AS entries
  FROM ledger_entries l GROUP BY l.transaction_reference_id
  HAVING sum(${SIGNED_AMOUNT}) <> 0 OR count(*) < 2
  ORDER BY 1`;

// What the dropped foreign keys used to refuse (see migrations/1764001100000-lean-money-movements.ts).
// Deletes of accounts and transactions are refused by triggers.
const LEDGER_ORPHANS = `
  SELECT kind, id::text AS id, missing, missing_id::text AS "missingId" FROM (
    SELECT 'ledger-entry' AS kind, l.id, 'account' AS missing, l.user_id AS missing_id FROM ledger_entries l
    WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = l.user_id)
    UNION ALL
    SELECT 'ledger-entry', l.id, 'transaction', l.transaction_id FROM ledger_entries l
    WHERE l.transaction_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = l.transaction_id)
  ) o
  ORDER BY o.id, missing`;

const COUNT_ENTRIES = `SELECT count(*)::int AS entries FROM ledger_entries`;

// The statement reads of a ledger (src/statements shapes them): entries over a period with their
// transaction's type, counterparty and note, and the balance before an instant, from balance_after.

/** How many entries a statement reads at a time; a period of no more is read with its owner at once. */
export const STATEMENT_BATCH_SIZE = 500;

/** An entry without a transaction is an opening balance from the treasury. */
const OPENING_BALANCE_TYPE = 'DEPOSIT';

// The newest of: the account's last live entry before the instant, and the head of its newest
// archived month that ended by then (ledger_checkpoints), so a period after archived history opens
// with the balance it left.
const balanceBefore = (instant: string, user = '$1') => `COALESCE((
  SELECT x.balance_after FROM (
    (SELECT b.balance_after, b.created_at AS at FROM ledger_entries b
     WHERE b.user_id = ${user} AND b.created_at < ${instant}
     ORDER BY b.created_at DESC, b.id DESC LIMIT 1)
    UNION ALL
    (SELECT k.balance_after, (k.month + interval '1 month') AT TIME ZONE 'UTC' FROM ledger_checkpoints k
     WHERE k.user_id = ${user} AND (k.month + interval '1 month') AT TIME ZONE 'UTC' <= ${instant}
     ORDER BY k.month DESC LIMIT 1)
  ) x ORDER BY x.at DESC LIMIT 1), 0)::text`;

const entriesOf = (user: string) => `
  SELECT e.created_at, e.transaction_reference_id, COALESCE(t.type, '${OPENING_BALANCE_TYPE}') AS type, e.entry_type,
         CASE WHEN t.id IS NULL THEN NULL
              WHEN e.entry_type = 'DEBIT' THEN t.receiver_upi_id ELSE t.sender_upi_id END AS counterparty_upi_id,
         e.amount::text AS amount, e.balance_after::text AS balance_after, t.note, e.id AS entry_id
  FROM ledger_entries e
  -- An entry carries its transaction's created_at (one movement, one instant): the period's
  -- partitions of transactions are all the join reads.
  LEFT JOIN transactions t ON t.id = e.transaction_id AND t.created_at = e.created_at
    AND t.created_at >= $2 AND t.created_at < $3
  WHERE e.user_id = ${user} AND e.created_at >= $2 AND e.created_at < $3
  ORDER BY e.created_at, e.id`;

/** $1 the user's id; $2, $3 the period [from, to). */
const STATEMENT_ENTRIES = entriesOf('$1');

/** The balances before $2 and $3 of the user whose id is $1. */
const STATEMENT_BALANCES = `SELECT ${balanceBefore('$2')} AS opening, ${balanceBefore('$3')} AS closing`;

/**
 * The account by reference ID ($1), its balances at both ends of [$2, $3), and up to one entry
 * more than a batch: all of them when the period fits in one.
 */
const STATEMENT_OWNER_AND_FIRST_BATCH = `
  SELECT o.id AS owner_id, o.reference_id AS owner_reference_id, o.upi_id AS owner_upi_id,
         ${balanceBefore('$2', 'o.id')} AS opening, ${balanceBefore('$3', 'o.id')} AS closing, s.*
  FROM users o
  LEFT JOIN LATERAL (${entriesOf('o.id')} LIMIT ${STATEMENT_BATCH_SIZE + 1}) s ON true
  WHERE o.reference_id = $1
  ORDER BY s.created_at, s.entry_id`;

/**
 * For the statement's first read, made many times a second: PostgreSQL's default re-plans it on
 * every call (a custom plan prunes the period's partitions while planning, and so looks cheaper
 * than the generic one), which costs more than reading it and grows with every month kept:
 * 6.9 ms of planning against 3.1 ms of execution with 14 monthly partitions (pg_stat_statements).
 * The generic plan is made once per connection and prunes the partitions when it starts.
 */
const GENERIC_PLAN = `SET LOCAL plan_cache_mode = force_generic_plan`;

/** The balance at each step's end ($4, a step of $5) overlapping [$2, $3) of the user $1; the last at $3. */
const BALANCE_HISTORY = `SELECT p.at, ${balanceBefore('p.at')} AS balance
         FROM (
           SELECT least(g + $4::interval, $3::timestamptz) AS at
           FROM generate_series(date_trunc($5, $2::timestamptz, 'UTC'), $3::timestamptz, $4::interval) g
           WHERE g < $3::timestamptz
         ) p
         ORDER BY p.at`;

/** One statement line as read: the numeric(19,4) columns' text, exactly four decimals. */
export interface StatementEntryRow {
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

export interface StatementBalanceRow {
  opening: string;
  closing: string;
}

export interface StatementOwnerRow extends Partial<StatementEntryRow>, StatementBalanceRow {
  owner_id: string;
  owner_reference_id: string;
  owner_upi_id: string;
}

/** A statement as read in one snapshot: the balances first, then the entries a batch at a time. */
export type StatementRead =
  { kind: 'balances'; balances: StatementBalanceRow } | { kind: 'entries'; rows: StatementEntryRow[] };

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

/** A row of a ledger page: also its created_at exactly, which a Date would round to milliseconds. */
export interface LedgerPageRow extends LedgerEntryRow {
  /** Microseconds since 1970-01-01 UTC, as text: what a cursor naming this entry carries. */
  createdAtMicros: string;
}

/** A page of a ledger with the account it belongs to, as the ownership rules need it. */
export interface OwnedLedgerRows {
  owner: { referenceId: string; upiId: string };
  /** Only an offset page counts the ledger. */
  total: number;
  /** Null when the cursor's entry is not in this ledger. */
  rows: LedgerPageRow[] | null;
}

/** The entry a cursor names: its id, and its created_at (microseconds since 1970) unless the cursor predates it. */
export interface LedgerAnchor {
  id: string;
  createdAtMicros?: string;
}

type Position = 'offset' | 'after' | 'afterId';

/**
 * Where each kind of page starts, and the cursor's entry ("k": it must be this ledger's). A page
 * reads ledger_entries through ix_ledger_entries_user_created (user_id, created_at DESC, id DESC)
 * alone, the table's one index (it has no primary key).
 * - offset: after $2 entries.
 * - after: strictly after the entry a cursor names, by keyset on (created_at, id) = ($4, $2). The
 *   cursor carries both, so its entry is one probe of one month's index, and the page starts in
 *   that month: the months after it are pruned ($4 bounds created_at), the ones before it are read
 *   only while the page is not full.
 * - afterId: a cursor issued before cursors carried created_at names its entry by id ($2) alone:
 *   found among the owner's entries, month by month, then read as above.
 */
const STARTS: Record<Position, { anchor: string; after: string; offset: string }> = {
  offset: { anchor: '', after: '', offset: 'OFFSET $2 ' },
  after: {
    anchor: 'SELECT a.id FROM ledger_entries a WHERE a.user_id = o.id AND a.created_at = $4 AND a.id = $2 LIMIT 1',
    after: 'AND x.created_at <= $4 AND (x.created_at, x.id) < ($4, $2)',
    offset: '',
  },
  afterId: {
    anchor: 'SELECT a.id, a.created_at FROM ledger_entries a WHERE a.user_id = o.id AND a.id = $2 LIMIT 1',
    after: 'AND x.created_at <= k.created_at AND (x.created_at, x.id) < (k.created_at, k.id)',
    offset: '',
  },
};

/**
 * The one ledger page query: newest first, after `offset` entries or strictly after the entry a
 * cursor names in (created_at, id) order, so that entries appended meanwhile (always newer)
 * neither shift nor repeat what follows. The owner comes in the same statement (one round trip,
 * one snapshot); a user without entries still comes back as one row, with null entry columns.
 * $1 the owner's reference ID; $2 the offset or the cursor's entry id; $3 how many rows; $4 the
 * cursor's created_at.
 */
function pageQuery(position: Position): string {
  const start = STARTS[position];
  const total =
    position === 'offset'
      ? 'LATERAL (SELECT count(*) AS total FROM ledger_entries c WHERE c.user_id = o.id) n'
      : '(SELECT null::bigint AS total) n';
  const anchor = start.anchor && `\n  LEFT JOIN LATERAL (${start.anchor}) k ON true`;
  return `
  SELECT o.reference_id AS "ownerReferenceId", o.upi_id AS "ownerUpiId", n.total,
         ${position === 'offset' ? 'true' : 'k.id IS NOT NULL'} AS anchored,
         e.id, e.transaction_reference_id AS "transactionReferenceId", e.entry_type AS "entryType", e.amount,
         e.balance_before AS "balanceBefore", e.balance_after AS "balanceAfter", e.created_at AS "createdAt",
         (extract(epoch FROM e.created_at) * 1000000)::bigint::text AS "createdAtMicros"
  FROM users o
  CROSS JOIN ${total}${anchor}
  LEFT JOIN LATERAL (
    SELECT x.id, x.transaction_reference_id, x.entry_type, x.amount, x.balance_before, x.balance_after, x.created_at
    FROM ledger_entries x WHERE x.user_id = o.id ${start.after}
    ORDER BY x.created_at DESC, x.id DESC ${start.offset}LIMIT $3) e ON true
  WHERE o.reference_id = $1
  ORDER BY e.created_at DESC, e.id DESC`;
}

const PAGE_QUERIES: Record<Position, { name: string; text: string }> = {
  offset: { name: 'ledger-owner-page', text: pageQuery('offset') },
  after: { name: 'ledger-owner-after', text: pageQuery('after') },
  afterId: { name: 'ledger-owner-after-id', text: pageQuery('afterId') },
};

const RECORD_OPENING_BALANCE = 'SELECT record_opening_balance($1, $2)';

interface PageRow extends LedgerPageRow {
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

  /** Up to `take` entries after the one a cursor names; null for an unknown reference ID. */
  findPageAfter(ownerReferenceId: string, after: LedgerAnchor, take: number): Promise<OwnedLedgerRows | null> {
    if (after.createdAtMicros === undefined) return this.read('afterId', [ownerReferenceId, after.id, take]);
    return this.read('after', [ownerReferenceId, after.id, take, instantOf(after.createdAtMicros)]);
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
    return inTransaction(this.pool, async (client) => {
      await client.query(GENERIC_PLAN);
      const { rows } = await client.query<StatementOwnerRow>({
        name: 'statement-owner-first-batch',
        text: STATEMENT_OWNER_AND_FIRST_BATCH,
        values: [referenceId, from, to],
      });
      return rows;
    });
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

/** Microseconds since 1970 as an ISO 8601 instant with all six decimals, as PostgreSQL reads it exactly. */
function instantOf(micros: string): string {
  const total = BigInt(micros);
  const millis = total / 1000n - (total % 1000n < 0n ? 1n : 0n);
  const rest = (total - millis * 1000n).toString().padStart(3, '0');
  return `${new Date(Number(millis)).toISOString().slice(0, -1)}${rest}Z`;
}

async function release(client: PoolClient, rollback: boolean): Promise<void> {
  try {
    if (rollback) await client.query('ROLLBACK');
    client.release();
  } catch (error) {
    client.release(error as Error);
  }
}
