// The statement reads of a ledger (src/statements shapes them): entries over a period with their
// transaction's type, counterparty and note, and the balance before an instant, from balance_after.

/** How many entries a statement reads at a time; a period of no more is read with its owner at once. */
export const STATEMENT_BATCH_SIZE = 500;

/** An entry without a transaction is an opening balance from the treasury. */
const OPENING_BALANCE_TYPE = 'DEPOSIT';

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

/** $1 the user's id; $2, $3 the period [from, to). */
export const STATEMENT_ENTRIES = entriesOf('$1');

/** The balances before $2 and $3 of the user whose id is $1. */
export const STATEMENT_BALANCES = `SELECT ${balanceBefore('$2')} AS opening, ${balanceBefore('$3')} AS closing`;

/**
 * The account by reference ID ($1), its balances at both ends of [$2, $3), and up to one entry
 * more than a batch: all of them when the period fits in one.
 */
export const STATEMENT_OWNER_AND_FIRST_BATCH = `
  SELECT o.id AS owner_id, o.reference_id AS owner_reference_id, o.upi_id AS owner_upi_id,
         ${balanceBefore('$2', 'o.id')} AS opening, ${balanceBefore('$3', 'o.id')} AS closing, s.*
  FROM users o
  LEFT JOIN LATERAL (${entriesOf('o.id')} LIMIT ${STATEMENT_BATCH_SIZE + 1}) s ON true
  WHERE o.reference_id = $1
  ORDER BY s.created_at, s.entry_id`;

/** The balance at each step's end ($4, a step of $5) overlapping [$2, $3) of the user $1; the last at $3. */
export const BALANCE_HISTORY = `SELECT p.at, ${balanceBefore('p.at')} AS balance
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
