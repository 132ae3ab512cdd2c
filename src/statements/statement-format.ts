import { formatMoney, moneyJson } from '../common/money/money';
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
    amount: moneyJson(entry.amount),
    balanceAfter: moneyJson(entry.balanceAfter),
    note: entry.note,
  };
}

/** RFC 4180: CRLF line ends; a field with a comma, quote, CR or LF is quoted, quotes doubled. */
export async function* statementCsv(chunks: AsyncIterable<StatementChunk>): AsyncGenerator<string> {
  yield `${CSV_HEADER}\r\n`;
  for await (const chunk of chunks) {
    if (chunk.kind === 'entries') yield chunk.entries.map(csvLine).join('');
  }
}

/** The JSON form, written as it is read: the balances first, then each batch of entries. */
export async function* statementJson(
  range: StatementRange,
  balances: StatementBalances,
  chunks: AsyncIterable<StatementChunk>,
): AsyncGenerator<string> {
  const head = JSON.stringify({
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    openingBalance: moneyJson(balances.openingBalance),
    closingBalance: moneyJson(balances.closingBalance),
  });
  yield `${head.slice(0, -1)},"entries":[`;
  let separator = '';
  for await (const chunk of chunks) {
    if (chunk.kind !== 'entries') continue;
    yield separator + chunk.entries.map((entry) => JSON.stringify(entryJson(entry))).join(',');
    separator = ',';
  }
  yield ']}';
}

function csvLine(entry: StatementEntry): string {
  const fields = [
    entry.createdAt.toISOString(),
    entry.transactionReferenceId,
    entry.type,
    entry.entryType,
    entry.counterpartyUpiId ?? '',
    formatMoney(entry.amount),
    formatMoney(entry.balanceAfter),
    neutralizeFormula(entry.note ?? ''),
  ];
  return `${fields.map(csvField).join(',')}\r\n`;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

// A statement is opened in spreadsheets: a note the sender wrote as "=HYPERLINK(...)" must stay
// text there, not become a formula (OWASP "CSV injection"). The leading apostrophe is the
// usual guard; it is the only place where the CSV differs from the JSON form.
function neutralizeFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
