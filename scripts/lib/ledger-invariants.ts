import type { ClientBase } from 'pg';

export interface InvariantScope {
  /**
   * Reference ids of the users to check; all accounts (the treasury included) when absent.
   * Transfers and reversals must stay inside the set; deposits and openings come from the treasury.
   */
  userReferenceIds?: string[];
}

interface Check {
  name: string;
  /** Returns one row per violation, with whatever explains it. */
  sql: string;
}

/** The treasury's accounts (users.kind TREASURY), the source of every unit of money. */
const TREASURY = `(SELECT id FROM users WHERE kind = 'TREASURY')`;
/** The holds accounts (users.kind HOLDS), which keep the money of open holds (src/holds). */
const HOLDS = `(SELECT id FROM users WHERE kind = 'HOLDS')`;
/** The ledger references of hold placements and returns: entries between a payer and a holds account, no transaction. */
const HOLD_REFERENCES = `(SELECT reference_id FROM holds UNION ALL SELECT return_reference_id FROM holds WHERE return_reference_id IS NOT NULL)`;

// $1 is the scope (uuid[]) or NULL for the whole database.
const IN_SCOPE_USERS = `SELECT id FROM users WHERE $1::uuid[] IS NULL OR reference_id = ANY($1::uuid[])`;

/** What the open holds of the users in scope still reserve: money out of their balances, in a holds account. */
const HELD_IN_SCOPE = `(SELECT coalesce(sum(amount - captured_amount), 0) FROM holds
  WHERE status = 'HELD' AND payer_id IN (${IN_SCOPE_USERS}))`;

/** The account a transaction's DEBIT belongs to: its sender, or the hold's holds account for a capture. */
const DEBITED = `coalesce(h.account_id, t.sender_id)`;

const CHECKS: Check[] = [
  {
    name: 'balance equals credits minus debits',
    sql: `
      SELECT u.upi_id, u.balance::text AS balance, coalesce(sum(CASE l.entry_type WHEN 'CREDIT' THEN l.amount ELSE -l.amount END), 0)::text AS ledger
      FROM users u LEFT JOIN ledger_entries l ON l.user_id = u.id
      WHERE u.id IN (${IN_SCOPE_USERS})
      GROUP BY u.id HAVING u.balance <> coalesce(sum(CASE l.entry_type WHEN 'CREDIT' THEN l.amount ELSE -l.amount END), 0)`,
  },
  {
    name: 'no negative balance',
    // The treasury's balance is minus all money issued: it is the one account below zero.
    sql: `SELECT upi_id, balance::text FROM users WHERE id IN (${IN_SCOPE_USERS}) AND balance < 0 AND kind <> 'TREASURY'`,
  },
  {
    // A hold's capture is debited from the holds account: the payer's money left at placement.
    name: 'every transfer has exactly one DEBIT of the sender and one CREDIT of the receiver, of its amount (a capture: the DEBIT of the holds account)',
    sql: `
      SELECT t.reference_id,
        count(*) FILTER (WHERE l.entry_type = 'DEBIT' AND l.user_id = ${DEBITED} AND l.amount = t.amount) AS debits,
        count(*) FILTER (WHERE l.entry_type = 'CREDIT' AND l.user_id = t.receiver_id AND l.amount = t.amount) AS credits,
        count(l.id) AS entries
      FROM transactions t LEFT JOIN ledger_entries l ON l.transaction_id = t.id
      LEFT JOIN holds h ON h.reference_id = t.hold_reference_id
      WHERE t.type <> 'DEPOSIT' AND (t.sender_id IN (${IN_SCOPE_USERS}) OR t.receiver_id IN (${IN_SCOPE_USERS}))
      GROUP BY t.id, t.created_at
      HAVING count(*) FILTER (WHERE l.entry_type = 'DEBIT' AND l.user_id = ${DEBITED} AND l.amount = t.amount) <> 1
          OR count(*) FILTER (WHERE l.entry_type = 'CREDIT' AND l.user_id = t.receiver_id AND l.amount = t.amount) <> 1
          OR count(l.id) <> 2`,
  },
  {
    name: 'every entry moves its balance by its amount',
    sql: `
      SELECT id, entry_type, amount::text, balance_before::text, balance_after::text FROM ledger_entries
      WHERE user_id IN (${IN_SCOPE_USERS})
        AND balance_after <> balance_before + CASE entry_type WHEN 'CREDIT' THEN amount ELSE -amount END`,
  },
  {
    name: "each entry starts from the previous entry's balance",
    sql: `
      SELECT user_id, id, balance_before::text, previous_after::text FROM (
        SELECT user_id, id, balance_before, lag(balance_after, 1, 0::numeric) OVER (PARTITION BY user_id ORDER BY id) AS previous_after
        FROM ledger_entries WHERE user_id IN (${IN_SCOPE_USERS})) chain
      WHERE balance_before <> previous_after`,
  },
  {
    name: 'entries without a transfer are opening credits, or a hold placed or returned',
    sql: `
      SELECT id, entry_type, balance_before::text FROM ledger_entries
      WHERE user_id IN (${IN_SCOPE_USERS}) AND user_id NOT IN ${TREASURY} AND user_id NOT IN ${HOLDS}
        AND transaction_id IS NULL AND transaction_reference_id NOT IN ${HOLD_REFERENCES}
        AND (entry_type <> 'CREDIT' OR balance_before <> 0)`,
  },
  {
    name: 'every hold placed or returned is one entry of its payer and one of its holds account, of the same amount',
    sql: `
      SELECT h.reference_id, r.reference, count(l.id) AS entries
      FROM holds h
      CROSS JOIN LATERAL (VALUES (h.reference_id, 'DEBIT'), (h.return_reference_id, 'CREDIT')) r(reference, payer_side)
      LEFT JOIN ledger_entries l ON l.transaction_reference_id = r.reference
      WHERE r.reference IS NOT NULL AND h.payer_id IN (${IN_SCOPE_USERS})
      GROUP BY h.id, r.reference, r.payer_side
      HAVING count(l.id) <> 2
          OR count(*) FILTER (WHERE l.user_id = h.payer_id AND l.entry_type = r.payer_side) <> 1
          OR count(*) FILTER (WHERE l.user_id = h.account_id AND l.entry_type <> r.payer_side) <> 1
          OR min(l.amount) <> max(l.amount)`,
  },
  {
    name: "every opening credit and deposit has the treasury's debits, of its amount",
    sql: `
      SELECT l.id, l.transaction_reference_id, l.amount::text, coalesce(sum(t.amount), 0)::text AS issued
      FROM ledger_entries l
      LEFT JOIN transactions x ON x.id = l.transaction_id
      LEFT JOIN ledger_entries t ON t.transaction_reference_id = l.transaction_reference_id
        AND t.user_id IN ${TREASURY} AND t.entry_type = 'DEBIT'
      WHERE l.user_id IN (${IN_SCOPE_USERS}) AND l.user_id NOT IN ${TREASURY} AND l.user_id NOT IN ${HOLDS}
        AND l.entry_type = 'CREDIT' AND (l.transaction_id IS NULL OR x.type = 'DEPOSIT')
        AND l.transaction_reference_id NOT IN ${HOLD_REFERENCES}
      GROUP BY l.id, l.created_at, l.transaction_reference_id, l.amount
      HAVING l.amount <> coalesce(sum(t.amount), 0)`,
  },
  {
    // Outbox events go with their daily partition after OUTBOX_RETENTION_DAYS: transfers older than
    // the oldest partition left have none.
    name: 'every transfer has exactly one outbox event, and every event a transfer',
    sql: `
      SELECT coalesce(t.reference_id::text, e.ref) AS reference_id, count(e.ref) AS events, count(t.id) AS transfers
      FROM (SELECT id, reference_id FROM transactions
            WHERE type <> 'DEPOSIT' AND (sender_id IN (${IN_SCOPE_USERS}) OR receiver_id IN (${IN_SCOPE_USERS}))
              AND created_at >= (SELECT coalesce(min(range_start), '-infinity') FROM partition_ranges('outbox_events'))) t
      FULL JOIN (SELECT payload::jsonb->>'transactionReferenceId' AS ref FROM outbox_messages()
                 -- A hold names a transaction only in its capture's one event; disputes name none of their own.
                 WHERE event_type IN ('TransferCompleted', 'TransferReversed', 'HoldCaptured')
                   AND ($1::uuid[] IS NULL OR aggregate_key IN (SELECT upi_id FROM users WHERE id IN (${IN_SCOPE_USERS})))) e
        ON e.ref = t.reference_id::text
      GROUP BY 1 HAVING count(e.ref) <> 1 OR count(t.id) <> 1`,
  },
  {
    // Opening balances and deposits are the money the treasury issued to these users; what their
    // open holds reserve sits in a holds account meanwhile.
    name: 'the sum of balances equals the sum of opening balances (with what open holds reserve)',
    sql: `
      WITH sums AS (
        SELECT (SELECT coalesce(sum(balance), 0) FROM users
                WHERE id IN (${IN_SCOPE_USERS}) AND kind = 'USER') + ${HELD_IN_SCOPE} AS balances,
               (SELECT coalesce(sum(l.amount), 0) FROM ledger_entries l LEFT JOIN transactions t ON t.id = l.transaction_id
                WHERE l.user_id IN (${IN_SCOPE_USERS}) AND l.user_id NOT IN ${TREASURY} AND l.user_id NOT IN ${HOLDS}
                  AND l.entry_type = 'CREDIT' AND (l.transaction_id IS NULL OR t.type = 'DEPOSIT')
                  AND l.transaction_reference_id NOT IN ${HOLD_REFERENCES}) AS openings)
      SELECT balances::text, openings::text FROM sums WHERE balances <> openings`,
  },
  {
    name: 'every holds account keeps exactly what its open holds reserve',
    sql: `
      SELECT a.upi_id, a.balance::text AS balance, coalesce(sum(h.amount - h.captured_amount), 0)::text AS reserved
      FROM users a LEFT JOIN holds h ON h.account_id = a.id AND h.status = 'HELD'
      WHERE a.kind = 'HOLDS' AND $1::uuid[] IS NULL
      GROUP BY a.id HAVING a.balance <> coalesce(sum(h.amount - h.captured_amount), 0)`,
  },
  {
    name: 'the sum of all balances, treasury included, is zero',
    sql: `SELECT sum(balance)::text AS total FROM users WHERE $1::uuid[] IS NULL HAVING sum(balance) <> 0`,
  },
];

/** Checks the ledger rules (docs/money-core.md); returns one line per violation (empty when all hold). */
export async function findLedgerViolations(db: ClientBase, scope: InvariantScope = {}): Promise<string[]> {
  const violations: string[] = [];
  for (const check of CHECKS) {
    const result = await db.query(check.sql, [scope.userReferenceIds ?? null]);
    for (const row of result.rows.slice(0, 20)) violations.push(`${check.name}: ${JSON.stringify(row)}`);
    if (result.rows.length > 20) violations.push(`${check.name}: ... ${result.rows.length - 20} more`);
  }
  return violations;
}
