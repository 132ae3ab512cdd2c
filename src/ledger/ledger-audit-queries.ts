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
// moved entry breaks exactly the links around it, and the rest of the chain still verifies.
export const BROKEN_ENTRIES = `
  SELECT c.id::text AS "entryId", c.user_id::text AS "accountId", u.upi_id AS "upiId", array_remove(ARRAY[
      CASE WHEN c.hash IS DISTINCT FROM c.expected_hash
           THEN 'hash does not match the entry and the previous entry of its account' END,
      CASE WHEN c.balance_before <> c.previous_after
           THEN 'balanceBefore is not the previous entry''s balanceAfter' END,
      CASE WHEN c.balance_after <> c.balance_before + c.signed
           THEN 'balanceAfter is not balanceBefore moved by the amount' END], NULL) AS reasons
  FROM (
    SELECT l.id, l.user_id, l.hash, l.balance_before, l.balance_after, ${SIGNED_AMOUNT} AS signed,
      lag(l.balance_after, 1, 0::numeric) OVER w AS previous_after,
      ledger_entry_hash(lag(l.hash) OVER w, l.user_id, l.transaction_reference_id, l.entry_type, l.amount,
                        l.balance_before, l.balance_after, l.created_at) AS expected_hash
    FROM ledger_entries l
    WINDOW w AS (PARTITION BY l.user_id ORDER BY l.id)
  ) c LEFT JOIN users u ON u.id = c.user_id
  WHERE c.hash IS DISTINCT FROM c.expected_hash OR c.balance_before <> c.previous_after
     OR c.balance_after <> c.balance_before + c.signed
  ORDER BY c.id`;

export const UNBALANCED_TRANSACTIONS = `
  SELECT l.transaction_reference_id::text AS "transactionReferenceId", sum(${SIGNED_AMOUNT})::text AS sum,
         count(*)::int AS entries
  FROM ledger_entries l GROUP BY l.transaction_reference_id
  HAVING sum(${SIGNED_AMOUNT}) <> 0 OR count(*) < 2
  ORDER BY 1`;

// What the dropped foreign keys used to refuse (see migrations/1764001100000-lean-money-movements.ts).
// Deletes of accounts and transactions are refused by triggers.
export const LEDGER_ORPHANS = `
  SELECT kind, id::text AS id, missing, missing_id::text AS "missingId" FROM (
    SELECT 'ledger-entry' AS kind, l.id, 'account' AS missing, l.user_id AS missing_id FROM ledger_entries l
    WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = l.user_id)
    UNION ALL
    SELECT 'ledger-entry', l.id, 'transaction', l.transaction_id FROM ledger_entries l
    WHERE l.transaction_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = l.transaction_id)
  ) o
  ORDER BY o.id, missing`;

export const COUNT_ENTRIES = `SELECT count(*)::int AS entries FROM ledger_entries`;
