/**
 * BUSINESS_TIME_ZONE is read by two clocks: luxon/Intl in the service (schedules) and PostgreSQL's
 * AT TIME ZONE (daily limits). Both take IANA Area/Location names from the same tz database and agree
 * on them. They disagree on everything else: PostgreSQL reads a bare offset such as "+05:30" the POSIX
 * way (UTC−05:30) where Intl reads UTC+05:30, and an abbreviation such as "IST" is Israel in
 * PostgreSQL but India in Intl. So only names both read alike are accepted.
 */
const ZONES_WITHOUT_AREA = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT']);

export const BUSINESS_TIME_ZONE_DEFAULT = 'Asia/Kolkata';

/** The problem with a BUSINESS_TIME_ZONE value, in one line; undefined when PostgreSQL and the service agree on it. */
export function businessTimeZoneProblem(zone: string): string | undefined {
  const intro = `BUSINESS_TIME_ZONE must be an IANA time zone such as ${BUSINESS_TIME_ZONE_DEFAULT}`;
  if (/^(UTC|GMT)?\s*[+-]\d/i.test(zone)) {
    return (
      `${intro}, not a UTC offset ("${zone}"): PostgreSQL reads a bare offset with the opposite sign (POSIX), ` +
      `so daily limits and schedules would disagree; name the zone (for +05:30, ${BUSINESS_TIME_ZONE_DEFAULT})`
    );
  }
  if (!knownToIntl(zone)) return `${intro}, got "${zone}"`;
  if (!zone.includes('/') && !ZONES_WITHOUT_AREA.has(zone)) {
    return (
      `${intro}, not an abbreviation ("${zone}"): PostgreSQL and the service may read it as different zones; ` +
      `use an Area/Location name or UTC`
    );
  }
  return undefined;
}

function knownToIntl(zone: string): boolean {
  try {
    return !/^[+-]/.test(new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone);
  } catch {
    return false;
  }
}
