import { moneyJson } from '../common/money/money';
import { numericColumnJson, numericColumnText } from '../common/money/numeric-text';
import type { StatementRange } from './statement-query';
import type { StatementBalances, StatementChunk, StatementEntry } from './statements.service';

export const CSV_HEADER = 'createdAt,transactionReferenceId,type,entryType,counterpartyUpiId,amount,balanceAfter,note';

/** One statement line, the same fields in JSON and CSV. */
export function entryJson(entry: StatementEntry) {
  return {
    createdAt: entry.createdAt.toISOString(),
    transactionReferenceId: entry.transactionReferenceId,
    type: entry.type,
    entryType: entry.entryType,
    counterpartyUpiId: entry.counterpartyUpiId,
    amount: numericColumnJson(entry.amount),
    balanceAfter: numericColumnJson(entry.balanceAfter),
    note: entry.note,
  };
}

export const CSV_HEAD = `${CSV_HEADER}\r\n`;

/** RFC 4180: CRLF line ends; a field with a comma, semicolon, quote, CR or LF is quoted, quotes doubled. */
export async function* statementCsv(chunks: AsyncIterable<StatementChunk>): AsyncGenerator<string> {
  yield CSV_HEAD;
  for await (const chunk of chunks) {
    if (chunk.kind === 'entries') yield csvLines(chunk.entries);
  }
}

/** The CSV form of a statement read whole: the same bytes statementCsv streams. */
export function statementCsvText(entries: StatementEntry[]): string {
  return CSV_HEAD + csvLines(entries);
}

/** The JSON form, written as it is read: the balances first, then each batch of entries. */
export async function* statementJson(
  range: StatementRange,
  balances: StatementBalances,
  chunks: AsyncIterable<StatementChunk>,
): AsyncGenerator<string> {
  yield jsonHead(range, balances);
  let separator = '';
  for await (const chunk of chunks) {
    if (chunk.kind !== 'entries') continue;
    yield separator + jsonEntries(chunk.entries);
    separator = ',';
  }
  yield JSON_TAIL;
}

/** The JSON form of a statement read whole: the same bytes statementJson streams. */
export function statementJsonText(range: StatementRange, balances: StatementBalances, entries: StatementEntry[]) {
  return jsonHead(range, balances) + jsonEntries(entries) + JSON_TAIL;
}

const JSON_TAIL = ']}';

function jsonHead(range: StatementRange, balances: StatementBalances): string {
  const head = JSON.stringify({
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    openingBalance: moneyJson(balances.openingBalance),
    closingBalance: moneyJson(balances.closingBalance),
  });
  return `${head.slice(0, -1)},"entries":[`;
}

function jsonEntries(entries: StatementEntry[]): string {
  return entries.map((entry) => JSON.stringify(entryJson(entry))).join(',');
}

function csvLines(entries: StatementEntry[]): string {
  return entries.map(csvLine).join('');
}

function csvLine(entry: StatementEntry): string {
  const fields = [
    entry.createdAt.toISOString(),
    entry.transactionReferenceId,
    entry.type,
    entry.entryType,
    neutralizeFormula(entry.counterpartyUpiId ?? ''),
    numericColumnText(entry.amount),
    numericColumnText(entry.balanceAfter),
    neutralizeFormula(entry.note ?? ''),
  ];
  return `${fields.map(csvField).join(',')}\r\n`;
}

// Quoted also on ";": spreadsheets in locales whose list separator is ";" split on it, and an
// unquoted "x;=1+1" would then start a cell with a formula.
function csvField(value: string): string {
  return /[",;\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

// A statement is opened in spreadsheets: every text cell a user wrote (a note, a UPI ID, which
// may start with "-") must stay text there, not become a formula (OWASP "CSV injection"). The leading apostrophe is the
// usual guard; it is the only place where the CSV differs from the JSON form.
function neutralizeFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
