import type { ClientBase } from 'pg';
import type { Month } from '../archive/archive-month';
import { ArchivedMonthsRepository } from '../archive/archived-months.repository';
import { verifyArchivedMonth } from '../archive/month-archive';
import { Money, moneyJson } from '../common/money/money';
import {
  type BrokenEntry,
  LedgerEntriesRepository,
  type LedgerOrphan,
  type UnbalancedTransaction,
} from '../ledger/ledger-entries.repository';
import { type AdminActionsAudit, auditAdminActions } from '../limits/admin-actions.repository';
import {
  type BrokenTransaction,
  type TransactionOrphan,
  TransactionsRepository,
} from '../transactions/transactions.repository';
import { type BrokenAccount, UsersRepository } from '../users/users.repository';

/** At most this many findings of each kind are listed; the counts are always complete. */
const LISTED = 1000;

/** A row whose referenced row is missing. */
export type Orphan = LedgerOrphan | TransactionOrphan;

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

/**
 * Checks the whole ledger in one consistent snapshot: every account's hash chain and running
 * balance, every account's balance against its entries, every transaction's entries summing to
 * zero, every entry's and transaction's accounts (and an entry's transaction) existing, every
 * transaction against its hash, its entries and its reversals, and the sum of all balances
 * (treasury included) being zero. Each read is its table owner's (the repositories' static audit
 * methods, on this snapshot's connection). Read-only; takes no locks that writers wait for.
 */
export async function auditLedger(db: ClientBase): Promise<AuditReport> {
  await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const entries = listed(await LedgerEntriesRepository.findBrokenLinks(db));
    const accounts = listed(await UsersRepository.findBrokenAccounts(db));
    const transactions = listed(await LedgerEntriesRepository.findUnbalancedTransactions(db));
    const orphans = listed<Orphan>([
      ...(await LedgerEntriesRepository.findOrphans(db)),
      ...(await TransactionsRepository.findOrphans(db)),
    ]);
    const broken = listed(await TransactionsRepository.findBroken(db));
    const totals = { ...(await UsersRepository.totals(db)), entries: await LedgerEntriesRepository.count(db) };
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

/** One archived month as the audit found its files (npm run audit -- --archive). */
export interface ArchivedMonthAudit {
  month: Month;
  transactions: number;
  ledgerEntries: number;
  ok: boolean;
  problems: string[];
}

export interface ArchiveAudit {
  ok: boolean;
  directory: string;
  months: ArchivedMonthAudit[];
}

/**
 * Every archived month (archived_months) against its files in `directory`: the manifest is the one
 * whose SHA-256 the database kept, each file matches the manifest's SHA-256 and row count, every
 * transaction its content hash, every entry its link in its account's chain from the head before
 * the month (live, or the month before's checkpoint), and each account's head at the cut the one
 * the database kept, which the live chain's first entry after the cut links to (auditLedger).
 * Reads the files into temporary tables of this connection; run it outside a read-only snapshot.
 */
export async function auditArchive(db: ClientBase, directory: string): Promise<ArchiveAudit> {
  const months: ArchivedMonthAudit[] = [];
  for (const row of await ArchivedMonthsRepository.list(db)) {
    const problems = await verifyArchivedMonth(db, directory, row.month, row.manifestSha256);
    months.push({
      month: row.month,
      transactions: Number(row.transactions),
      ledgerEntries: Number(row.ledgerEntries),
      ok: problems.length === 0,
      problems,
    });
  }
  return { ok: months.every((month) => month.ok), directory, months };
}

function listed<T>(rows: T[]): { rows: T[]; count: number } {
  return { rows: rows.slice(0, LISTED), count: rows.length };
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
