/** A calendar month in UTC, written YYYY-MM: the unit of the money records' partitions and of the archive. */
export type Month = string;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

export function isMonth(text: string): text is Month {
  return MONTH.test(text);
}

/** The month's first instant, 00:00 UTC on its first day. */
export function monthStart(month: Month): Date {
  const [year, number] = month.split('-').map(Number);
  return new Date(Date.UTC(year, number - 1, 1));
}

export function monthOf(instant: Date): Month {
  return instant.toISOString().slice(0, 7);
}

export function nextMonth(month: Month): Month {
  const start = monthStart(month);
  return monthOf(new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)));
}

/** The partition of a money record's table that holds this month (the convention of src/partitions). */
export function monthPartition(table: ArchivedTable, month: Month): string {
  return `${table}_p${month.replace('-', '')}`;
}

/** The month a partition's name stands for; null for a name that is not a monthly partition of the table. */
export function partitionMonth(table: ArchivedTable, name: string): Month | null {
  const match = new RegExp(`^${table}_p(\\d{4})(\\d{2})$`).exec(name);
  if (!match) return null;
  const month = `${match[1]}-${match[2]}`;
  return isMonth(month) ? month : null;
}

/** The money records, archived month by month: the transactions first, then their ledger entries. */
export const ARCHIVED_TABLES = ['transactions', 'ledger_entries'] as const;
export type ArchivedTable = (typeof ARCHIVED_TABLES)[number];

/** Each archived table's SHA-256 column: its 32 bytes in the table, 64 hex characters in the files and the scratch tables. */
export const HASH_COLUMN: Record<ArchivedTable, string> = { transactions: 'content_hash', ledger_entries: 'hash' };
