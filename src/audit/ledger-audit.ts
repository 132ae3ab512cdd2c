import { type AdminActionsAudit, auditAdminActions } from './admin-actions-audit';
import type { ClientBase } from 'pg';
import { Money, moneyJson } from '../common/money/money';
import { BROKEN_TRANSACTIONS, type BrokenTransaction } from './transaction-audit';

/** At most this many findings of each kind are listed; the counts are always complete. */
const LISTED = 1000;

export interface BrokenEntry {
  entryId: string;
  accountId: string;
  /** Null when the account itself is missing (listed in orphans too). */
  upiId: string | null;
  reasons: string[];
}

export interface BrokenAccount {
  accountId: string;
  upiId: string;
  reason: string;
  balance: string;
  /** Balance mismatch: what the entries add up to. */
  ledgerBalance?: string;
  /** Head mismatch: the hash kept on the account and the hash of its newest entry. */
  headHash?: string | null;
  newestEntryHash?: string | null;
}

export interface UnbalancedTransaction {
  transactionReferenceId: string;
  sum: string;
  entries: number;
}

/** A row whose referenced row is missing (no foreign key stands guard: the movements write only rows they hold). */
export interface Orphan {
  kind: 'ledger-entry' | 'transaction';
  id: string;
  missing: 'account' | 'transaction' | 'sender' | 'receiver';
  missingId: string;
}

export interface AuditReport {
  ok: boolean;
  checkedAt: string;
  accounts: number;
  entries: number;
  /** Sum of every account's balance, treasury included: 0 when no money was created or lost. */
  globalSum: string;
  brokenEntries: BrokenEntry[];
  brokenAccounts: BrokenAccount[];
  unbalancedTransactions: UnbalancedTransaction[];
  orphans: Orphan[];
  brokenTransactions: BrokenTransaction[];
  counts: {
    brokenEntries: number;
    brokenAccounts: number;
    unbalancedTransactions: number;
    orphans: number;
    brokenTransactions: number;
  };
  adminActionsLog: AdminActionsAudit;
}

const SIGNED = `CASE l.entry_type WHEN 'CREDIT' THEN l.amount ELSE -l.amount END`;

// Each link is checked against the stored hash of the entry before it, so one changed, deleted or
// moved entry breaks exactly the links around it, and the rest of the chain still verifies.
const BROKEN_ENTRIES = `
  SELECT c.id::text AS "entryId", c.user_id::text AS "accountId", u.upi_id AS "upiId", array_remove(ARRAY[
      CASE WHEN c.hash IS DISTINCT FROM c.expected_hash
           THEN 'hash does not match the entry and the previous entry of its account' END,
      CASE WHEN c.balance_before <> c.previous_after
           THEN 'balanceBefore is not the previous entry''s balanceAfter' END,
      CASE WHEN c.balance_after <> c.balance_before + c.signed
           THEN 'balanceAfter is not balanceBefore moved by the amount' END], NULL) AS reasons
  FROM (
    SELECT l.id, l.user_id, l.hash, l.balance_before, l.balance_after, ${SIGNED} AS signed,
      lag(l.balance_after, 1, 0::numeric) OVER w AS previous_after,
      ledger_entry_hash(lag(l.hash) OVER w, l.user_id, l.transaction_reference_id, l.entry_type, l.amount,
                        l.balance_before, l.balance_after, l.created_at) AS expected_hash
    FROM ledger_entries l
    WINDOW w AS (PARTITION BY l.user_id ORDER BY l.id)
  ) c LEFT JOIN users u ON u.id = c.user_id
  WHERE c.hash IS DISTINCT FROM c.expected_hash OR c.balance_before <> c.previous_after
     OR c.balance_after <> c.balance_before + c.signed
  ORDER BY c.id`;

// The head kept on the account row catches what no later link can: a removed newest entry.
const BROKEN_ACCOUNTS = `
  WITH totals AS (
    SELECT u.id, u.upi_id, u.balance, u.last_entry_hash,
      coalesce(sum(${SIGNED}), 0) AS ledger,
      (SELECT l2.hash FROM ledger_entries l2 WHERE l2.user_id = u.id ORDER BY l2.id DESC LIMIT 1) AS newest_hash
    FROM users u LEFT JOIN ledger_entries l ON l.user_id = u.id
    GROUP BY u.id)
  SELECT id::text AS "accountId", upi_id AS "upiId", 'balance is not credits minus debits' AS reason,
         balance::text AS balance, ledger::text AS "ledgerBalance", NULL AS "headHash", NULL AS "newestEntryHash"
  FROM totals WHERE balance <> ledger
  UNION ALL
  SELECT id::text, upi_id, 'the head hash on the account is not the hash of its newest entry',
         balance::text, NULL, last_entry_hash, newest_hash
  FROM totals WHERE last_entry_hash IS DISTINCT FROM newest_hash
  ORDER BY 1, 3`;

const UNBALANCED_TRANSACTIONS = `
  SELECT l.transaction_reference_id::text AS "transactionReferenceId", sum(${SIGNED})::text AS sum,
         count(*)::int AS entries
  FROM ledger_entries l GROUP BY l.transaction_reference_id
  HAVING sum(${SIGNED}) <> 0 OR count(*) < 2
  ORDER BY 1`;

// What the dropped foreign keys used to refuse (see migrations/1764001100000-lean-money-movements.ts):
// rows naming an account or a transaction that does not exist. Deletes of either are refused by triggers.
const ORPHANS = `
  SELECT kind, id::text AS id, missing, missing_id::text AS "missingId" FROM (
    SELECT 'ledger-entry' AS kind, l.id, 'account' AS missing, l.user_id AS missing_id FROM ledger_entries l
    WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = l.user_id)
    UNION ALL
    SELECT 'ledger-entry', l.id, 'transaction', l.transaction_id FROM ledger_entries l
    WHERE l.transaction_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = l.transaction_id)
    UNION ALL
    SELECT 'transaction', t.id, 'sender', t.sender_id FROM transactions t
    WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.sender_id)
    UNION ALL
    SELECT 'transaction', t.id, 'receiver', t.receiver_id FROM transactions t
    WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.receiver_id)
  ) o
  ORDER BY kind, o.id, missing`;

const TOTALS = `
  SELECT (SELECT count(*) FROM users)::int AS accounts, (SELECT count(*) FROM ledger_entries)::int AS entries,
         (SELECT coalesce(sum(balance), 0) FROM users)::numeric(19,4)::text AS "globalSum"`;

/**
 * Checks the whole ledger in one consistent snapshot: every account's hash chain and running
 * balance, every account's balance against its entries, every transaction's entries summing to
 * zero, every entry's and transaction's accounts (and an entry's transaction) existing, every
 * transaction against its hash, its entries and its reversals (transaction-audit.ts), and the sum
 * of all balances (treasury included) being zero. Read-only; takes no locks
 * that writers wait for.
 */
export async function auditLedger(db: ClientBase): Promise<AuditReport> {
  await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const entries = await findings<BrokenEntry>(db, BROKEN_ENTRIES);
    const accounts = await findings<BrokenAccount>(db, BROKEN_ACCOUNTS);
    const transactions = await findings<UnbalancedTransaction>(db, UNBALANCED_TRANSACTIONS);
    const orphans = await findings<Orphan>(db, ORPHANS);
    const broken = await findings<BrokenTransaction>(db, BROKEN_TRANSACTIONS);
    const totals = (await db.query<{ accounts: number; entries: number; globalSum: string }>(TOTALS)).rows[0];
    const globalZero = new Money(totals.globalSum).eq(0);
    const adminActionsLog = await auditAdminActions(db);
    return {
      ok:
        globalZero &&
        adminActionsLog.appendOnly &&
        entries.count + accounts.count + transactions.count + orphans.count + broken.count === 0,
      checkedAt: new Date().toISOString(),
      accounts: totals.accounts,
      entries: totals.entries,
      globalSum: totals.globalSum,
      brokenEntries: entries.rows,
      brokenAccounts: accounts.rows,
      unbalancedTransactions: transactions.rows,
      orphans: orphans.rows,
      brokenTransactions: broken.rows,
      counts: {
        brokenEntries: entries.count,
        brokenAccounts: accounts.count,
        unbalancedTransactions: transactions.count,
        orphans: orphans.count,
        brokenTransactions: broken.count,
      },
      adminActionsLog,
    };
  } finally {
    await db.query('COMMIT');
  }
}

async function findings<T extends object>(db: ClientBase, sql: string): Promise<{ rows: T[]; count: number }> {
  const result = await db.query<T>(sql);
  return { rows: result.rows.slice(0, LISTED), count: result.rows.length };
}

/** The report as JSON text: ids as integers and amounts as 4-decimal numbers, like every answer. */
export function auditReportJson(report: AuditReport): string {
  const id = (value: string) => JSON.rawJSON(value);
  return JSON.stringify({
    ...report,
    globalSum: moneyJson(report.globalSum),
    brokenEntries: report.brokenEntries.map((entry) => ({
      ...entry,
      entryId: id(entry.entryId),
      accountId: id(entry.accountId),
    })),
    brokenAccounts: report.brokenAccounts.map(({ ledgerBalance, headHash, newestEntryHash, ...account }) => ({
      ...account,
      accountId: id(account.accountId),
      balance: moneyJson(account.balance),
      ...(ledgerBalance != null ? { ledgerBalance: moneyJson(ledgerBalance) } : { headHash, newestEntryHash }),
    })),
    unbalancedTransactions: report.unbalancedTransactions.map((transaction) => ({
      ...transaction,
      sum: moneyJson(transaction.sum),
    })),
    orphans: report.orphans.map((orphan) => ({ ...orphan, id: id(orphan.id), missingId: id(orphan.missingId) })),
    brokenTransactions: report.brokenTransactions.map((transaction) => ({
      ...transaction,
      transactionId: id(transaction.transactionId),
    })),
  });
}
