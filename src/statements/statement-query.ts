import { invalidRequest, ValidationError } from '../common/errors/api-error';
import { type Query, single } from '../common/paging/page';

/** [from, to): entries at `from` are in, entries at `to` are not. */
export interface StatementRange {
  from: Date;
  to: Date;
}

export const BALANCE_INTERVALS = ['hour', 'day'] as const;
export type BalanceInterval = (typeof BALANCE_INTERVALS)[number];

const DEFAULT_SPAN_DAYS = 30;
const MAX_SPAN_DAYS = 366;
const DAY_MS = 86_400_000;

// A calendar date (midnight UTC) or a date-time with an explicit offset: a local time would
// mean something different on every server.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/**
 * from and to, each optional: to defaults to now, from to 30 days before to. A value that is
 * not an ISO-8601 instant is a type mismatch (400); from after to, or a span over 366 days, 422.
 */
export function readStatementRange(query: Query, now: Date = new Date()): StatementRange {
  const to = readInstant(query, 'to') ?? now;
  const from = readInstant(query, 'from') ?? new Date(to.getTime() - DEFAULT_SPAN_DAYS * DAY_MS);
  if (from > to) throw new ValidationError({ from: 'from must not be after to' }, 'Invalid statement period');
  if (to.getTime() - from.getTime() > MAX_SPAN_DAYS * DAY_MS) {
    throw new ValidationError({ to: `the period must not exceed ${MAX_SPAN_DAYS} days` }, 'Invalid statement period');
  }
  return { from, to };
}

/** hour or day (the default); anything else is 422, like any other allow-listed choice. */
export function readInterval(query: Query): BalanceInterval {
  const value = single(query, 'interval') || 'day';
  if (!(BALANCE_INTERVALS as readonly string[]).includes(value)) {
    throw new ValidationError({ interval: `interval must be one of: ${BALANCE_INTERVALS.join(', ')}` });
  }
  return value as BalanceInterval;
}

function readInstant(query: Query, name: string): Date | undefined {
  const raw = single(query, name);
  if (raw === undefined || raw === '') return undefined;
  const value = new Date(raw);
  if (!ISO_INSTANT.test(raw) || Number.isNaN(value.getTime()) || !isCalendarDate(raw.slice(0, 10))) {
    throw invalidRequest(`${name} must be an ISO-8601 date or date-time with offset, got "${raw}"`);
  }
  return value;
}

/** Date would roll 2026-02-30 over into March instead of refusing it. */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
