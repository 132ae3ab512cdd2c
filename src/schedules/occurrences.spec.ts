import { nextOccurrenceAfter, occurrence, parseInstant, type Recurrence } from './occurrences';

const KOLKATA = 'Asia/Kolkata';
const BERLIN = 'Europe/Berlin';
const at = (iso: string) => new Date(iso);
const series = (frequency: Recurrence['frequency'], startAt: string, endAt?: string): Recurrence => ({
  frequency,
  startAt: at(startAt),
  endAt: endAt ? at(endAt) : null,
});
const iso = (date: Date | null) => date?.toISOString() ?? null;
const firstRuns = (recurrence: Recurrence, count: number, zone: string) =>
  Array.from({ length: count }, (_, n) => iso(occurrence(recurrence, n, zone)));

describe('scheduled transfer occurrences', () => {
  it('runs DAILY at the same local time, in India every 24 hours', () => {
    // 09:00 IST is 03:30 UTC.
    const daily = series('DAILY', '2026-03-27T03:30:00.000Z');
    expect(firstRuns(daily, 3, KOLKATA)).toEqual([
      '2026-03-27T03:30:00.000Z',
      '2026-03-28T03:30:00.000Z',
      '2026-03-29T03:30:00.000Z',
    ]);
  });

  it('keeps the local time across a DST change when the business time zone has one', () => {
    // 09:00 in Berlin: 08:00 UTC in winter time, 07:00 UTC from 29 March 2026 (summer time).
    const daily = series('DAILY', '2026-03-28T08:00:00.000Z');
    expect(firstRuns(daily, 3, BERLIN)).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
    expect(iso(nextOccurrenceAfter(daily, at('2026-03-29T07:30:00.000Z'), BERLIN))).toBe('2026-03-30T07:00:00.000Z');
  });

  it('runs MONTHLY on the 31st on the last day of shorter months, and back on the 31st after them', () => {
    // 31 January 2026, 10:00 IST.
    const monthly = series('MONTHLY', '2026-01-31T04:30:00.000Z');
    expect(firstRuns(monthly, 4, KOLKATA)).toEqual([
      '2026-01-31T04:30:00.000Z',
      '2026-02-28T04:30:00.000Z',
      '2026-03-31T04:30:00.000Z',
      '2026-04-30T04:30:00.000Z',
    ]);
    expect(iso(nextOccurrenceAfter(monthly, at('2026-02-28T04:30:00.000Z'), KOLKATA))).toBe('2026-03-31T04:30:00.000Z');
  });

  it('runs MONTHLY on the 31st on 29 February in a leap year, and a leap day start yearly-safe', () => {
    const monthly = series('MONTHLY', '2028-01-31T04:30:00.000Z');
    expect(iso(occurrence(monthly, 1, KOLKATA))).toBe('2028-02-29T04:30:00.000Z');
    // Started on a leap day: 29 March, 29 April, and 28 February in the next (common) year.
    const leapDay = series('MONTHLY', '2028-02-29T04:30:00.000Z');
    expect(iso(occurrence(leapDay, 1, KOLKATA))).toBe('2028-03-29T04:30:00.000Z');
    expect(iso(occurrence(leapDay, 12, KOLKATA))).toBe('2029-02-28T04:30:00.000Z');
    // DAILY through a leap day: 28 Feb, 29 Feb, 1 Mar.
    const daily = series('DAILY', '2028-02-28T04:30:00.000Z');
    expect(firstRuns(daily, 3, KOLKATA)).toEqual([
      '2028-02-28T04:30:00.000Z',
      '2028-02-29T04:30:00.000Z',
      '2028-03-01T04:30:00.000Z',
    ]);
  });

  it('finds the next occurrence strictly after a time, far into a series and before its start', () => {
    const weekly = series('WEEKLY', '2026-01-05T04:30:00.000Z');
    expect(iso(nextOccurrenceAfter(weekly, at('2025-12-01T00:00:00.000Z'), KOLKATA))).toBe('2026-01-05T04:30:00.000Z');
    expect(iso(nextOccurrenceAfter(weekly, at('2026-01-05T04:30:00.000Z'), KOLKATA))).toBe('2026-01-12T04:30:00.000Z');
    const daily = series('DAILY', '2026-01-01T04:30:00.000Z');
    expect(iso(nextOccurrenceAfter(daily, at('2030-06-15T05:00:00.000Z'), KOLKATA))).toBe('2030-06-16T04:30:00.000Z');
  });

  it('ends a series at endAt, and ONCE after its only run', () => {
    const daily = series('DAILY', '2026-01-01T04:30:00.000Z', '2026-01-02T04:30:00.000Z');
    expect(iso(nextOccurrenceAfter(daily, at('2026-01-01T04:30:00.000Z'), KOLKATA))).toBe('2026-01-02T04:30:00.000Z');
    expect(nextOccurrenceAfter(daily, at('2026-01-02T04:30:00.000Z'), KOLKATA)).toBeNull();
    const once = series('ONCE', '2026-01-01T04:30:00.000Z');
    expect(iso(nextOccurrenceAfter(once, at('2025-12-31T00:00:00.000Z'), KOLKATA))).toBe('2026-01-01T04:30:00.000Z');
    expect(nextOccurrenceAfter(once, at('2026-01-01T04:30:00.000Z'), KOLKATA)).toBeNull();
  });

  it('reads an instant without an offset as local time in the business time zone', () => {
    expect(iso(parseInstant('2026-05-01T09:00:00', KOLKATA))).toBe('2026-05-01T03:30:00.000Z');
    expect(iso(parseInstant('2026-05-01T09:00:00Z', KOLKATA))).toBe('2026-05-01T09:00:00.000Z');
    expect(parseInstant('2026-02-30T09:00:00Z', KOLKATA)).toBeNull();
    expect(parseInstant('tomorrow', KOLKATA)).toBeNull();
    expect(parseInstant('2026-05-01', KOLKATA)).toBeNull();
  });
});
