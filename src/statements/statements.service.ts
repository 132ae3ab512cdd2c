import { Injectable } from '@nestjs/common';
import type Big from 'big.js';
import { ArchivedMonthsRepository } from '../archive/archived-months.repository';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { Money } from '../common/money/money';
import {
  LedgerEntriesRepository,
  STATEMENT_BATCH_SIZE,
  type StatementEntryRow,
} from '../ledger/ledger-entries.repository';
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

/** Statements and balance history, read from the ledger's balance_after (LedgerEntriesRepository). */
@Injectable()
export class StatementsService {
  constructor(
    private readonly ledger: LedgerEntriesRepository,
    private readonly archivedMonths: ArchivedMonthsRepository,
  ) {}

  /** The account with this reference ID (null if none) and, for a period of one batch or less, its statement. */
  async ownedStatement(referenceId: string, range: StatementRange): Promise<OwnedStatement | null> {
    await this.refuseArchivedHistory(range);
    const rows = await this.ledger.findStatementOwner(referenceId, range.from.toISOString(), range.to.toISOString());
    if (rows.length === 0) return null;
    const [first] = rows;
    const entries = first.entry_id == null ? [] : (rows as StatementEntryRow[]);
    return {
      id: first.owner_id,
      referenceId: first.owner_reference_id,
      upiId: first.owner_upi_id,
      balances: { openingBalance: new Money(first.opening), closingBalance: new Money(first.closing) },
      entries: entries.length > STATEMENT_BATCH_SIZE ? null : entries.map(toEntry),
    };
  }

  /** The balances, then the entries in batches, all from one snapshot (see LedgerEntriesRepository.readStatement). */
  async *statement(userId: string, range: StatementRange): AsyncGenerator<StatementChunk> {
    for await (const read of this.ledger.readStatement(userId, range.from.toISOString(), range.to.toISOString())) {
      if (read.kind === 'balances') {
        const { opening, closing } = read.balances;
        yield {
          kind: 'balances',
          balances: { openingBalance: new Money(opening), closingBalance: new Money(closing) },
        };
      } else {
        yield { kind: 'entries', entries: read.rows.map(toEntry) };
      }
    }
  }

  /** The balance at the end of each hour or day (UTC) overlapping [from, to); the last one at `to`. */
  async balanceHistory(userId: string, range: StatementRange, interval: BalanceInterval): Promise<BalancePoint[]> {
    await this.refuseArchivedHistory(range);
    const { from, to } = range;
    const rows = await this.ledger.findBalanceHistory(
      userId,
      from.toISOString(),
      to.toISOString(),
      INTERVAL_STEP[interval],
      interval,
    );
    return rows.map((row) => ({ at: row.at, balance: new Money(row.balance) }));
  }

  /** A period that reaches an archived month (npm run archive) has no live entries to show there: 422, naming the first live month. */
  private async refuseArchivedHistory(range: StatementRange): Promise<void> {
    const firstLiveMonth = await this.archivedMonths.findFirstLiveMonthIfReached(
      range.from.toISOString(),
      range.to.toISOString(),
    );
    if (firstLiveMonth === null) return;
    throw new ApiError(
      ErrorCode.HistoryArchived,
      `The period reaches archived history; statements start from ${firstLiveMonth}`,
      { members: { firstLiveMonth } },
    );
  }
}

const INTERVAL_STEP: Record<BalanceInterval, string> = { hour: '1 hour', day: '24 hours' };

function toEntry(row: StatementEntryRow): StatementEntry {
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
