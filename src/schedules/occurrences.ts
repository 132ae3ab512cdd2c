import { DateTime } from 'luxon';

export const FREQUENCIES = ['ONCE', 'DAILY', 'WEEKLY', 'MONTHLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

const STEP = { DAILY: 'days', WEEKLY: 'weeks', MONTHLY: 'months' } as const;

/** What the calendar of a standing instruction depends on. */
export interface Recurrence {
  frequency: Frequency;
  startAt: Date;
  endAt: Date | null;
}

/**
 * The n-th occurrence (0 is startAt) in `zone`, always counted from the start rather than from the
 * previous run: luxon keeps the local wall time across DST changes, and a month that lacks the
 * start's day ends the step on its last day without shifting later months (31 Jan, 28 Feb, 31 Mar).
 */
export function occurrence(recurrence: Recurrence, n: number, zone: string): Date {
  if (recurrence.frequency === 'ONCE') return recurrence.startAt;
  const start = DateTime.fromJSDate(recurrence.startAt, { zone });
  return start.plus({ [STEP[recurrence.frequency]]: n }).toJSDate();
}

/** The first occurrence strictly after `after`, or null when the series has none left (ONCE, endAt). */
export function nextOccurrenceAfter(recurrence: Recurrence, after: Date, zone: string): Date | null {
  let next: Date;
  if (recurrence.frequency === 'ONCE') {
    next = recurrence.startAt;
    if (next.getTime() <= after.getTime()) return null;
  } else {
    const unit = STEP[recurrence.frequency];
    const start = DateTime.fromJSDate(recurrence.startAt, { zone });
    // An estimate a step early (diff rounds months and DST days either way), then forward to the answer.
    const elapsed = DateTime.fromJSDate(after, { zone }).diff(start, unit).get(unit);
    let n = Math.max(0, Math.floor(elapsed) - 1);
    while ((next = occurrence(recurrence, n, zone)).getTime() <= after.getTime()) n += 1;
  }
  if (recurrence.endAt && next.getTime() > recurrence.endAt.getTime()) return null;
  return next;
}

/**
 * An ISO-8601 instant as the API takes it: with an offset it is exact; without one it is a local time
 * in `zone`. Null when it is not a valid ISO-8601 date-time.
 */
export function parseInstant(text: string, zone: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text)) return null;
  const parsed = DateTime.fromISO(text, { zone });
  return parsed.isValid ? parsed.toJSDate() : null;
}
