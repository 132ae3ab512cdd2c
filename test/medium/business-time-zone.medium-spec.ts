import { DateTime } from 'luxon';
import { Client } from 'pg';
import { businessTimeZoneProblem } from '../../src/config/business-time-zone';
import { connectTestDatabase } from '../support/db';

/**
 * Daily limits count days with PostgreSQL's AT TIME ZONE, schedules with luxon: every zone
 * BUSINESS_TIME_ZONE accepts must give both the same UTC offset, at any instant (DST included).
 */
describe('BUSINESS_TIME_ZONE: PostgreSQL and luxon agree', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  const INSTANTS = ['2026-01-15T12:00:00Z', '2026-03-29T00:30:00Z', '2026-07-01T12:00:00Z', '2026-11-01T06:30:00Z'];

  /** Minutes east of UTC, as PostgreSQL reads the zone: local wall time minus UTC. */
  async function postgresOffsetMinutes(zone: string, instant: string): Promise<number> {
    const { rows } = await db.query<{ minutes: number }>(
      `SELECT (extract(epoch FROM ($1::timestamptz AT TIME ZONE $2) - ($1::timestamptz AT TIME ZONE 'UTC')) / 60)::int AS minutes`,
      [instant, zone],
    );
    return rows[0].minutes;
  }
  const luxonOffsetMinutes = (zone: string, instant: string) => DateTime.fromISO(instant, { zone }).offset;

  it.each([
    'Asia/Kolkata',
    'Europe/Berlin',
    'America/New_York',
    'Asia/Kathmandu',
    'Australia/Lord_Howe',
    'Etc/GMT-5',
    'UTC',
  ])('for the accepted zone %s', async (zone) => {
    expect(businessTimeZoneProblem(zone)).toBeUndefined();
    for (const instant of INSTANTS) {
      expect([instant, await postgresOffsetMinutes(zone, instant)]).toEqual([
        instant,
        luxonOffsetMinutes(zone, instant),
      ]);
    }
  });

  it.each(['+05:30', 'IST'])('but not for %s, which is why it is refused', async (zone) => {
    const instant = INSTANTS[0];
    expect(await postgresOffsetMinutes(zone, instant)).not.toBe(luxonOffsetMinutes(zone, instant));
    expect(businessTimeZoneProblem(zone)).toBeDefined();
  });
});
