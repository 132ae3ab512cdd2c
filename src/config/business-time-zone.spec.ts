import { businessTimeZoneProblem } from './business-time-zone';

describe('businessTimeZoneProblem', () => {
  it.each(['Asia/Kolkata', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Etc/GMT-5', 'UTC'])(
    'accepts the IANA name %s',
    (zone) => expect(businessTimeZoneProblem(zone)).toBeUndefined(),
  );

  it.each(['+05:30', '-08:00', '+0530', '+05', 'UTC+05:30', 'GMT-3'])(
    'refuses the offset %s, saying PostgreSQL reads it with the opposite sign',
    (zone) =>
      expect(businessTimeZoneProblem(zone)).toMatch(
        /^BUSINESS_TIME_ZONE must be an IANA time zone such as Asia\/Kolkata, not a UTC offset .*opposite sign/,
      ),
  );

  it.each(['IST', 'EST', 'PST8PDT'])('refuses the abbreviation %s, which PostgreSQL may read as another zone', (zone) =>
    expect(businessTimeZoneProblem(zone)).toMatch(/not an abbreviation/),
  );

  it('refuses a name no tz database knows', () => {
    expect(businessTimeZoneProblem('Asia/Atlantis')).toBe(
      'BUSINESS_TIME_ZONE must be an IANA time zone such as Asia/Kolkata, got "Asia/Atlantis"',
    );
  });
});
