import { ConfigError, loadConfig } from '../config/app-config';
import { limitsSettings } from '../config/limits-settings';

const base = { JWT_SECRET: 'unit-test-secret-of-at-least-32-bytes!!', DATABASE_URL: 'postgres://x@127.0.0.1/db' };

describe('limits configuration', () => {
  it('none (the default) keeps the spec: 1000000 per transfer, no daily or new-user limit', () => {
    const config = loadConfig(base);
    expect([config.limitsProfile, config.transferAmountMax, config.businessTimeZone]).toEqual([
      'none',
      '1000000',
      'Asia/Kolkata',
    ]);
    expect(limitsSettings(config)).toEqual({ timeZone: 'Asia/Kolkata' });
  });

  it("npci sets NPCI's P2P limits, and each variable overrides one", () => {
    expect(limitsSettings(loadConfig({ ...base, LIMITS_PROFILE: 'npci' }))).toEqual({
      timeZone: 'Asia/Kolkata',
      dailyAmountMax: '100000',
      dailyCountMax: 20,
      newUserAmountMax: '5000',
      newUserHours: 24,
    });
    const tuned = loadConfig({
      ...base,
      LIMITS_PROFILE: 'NPCI',
      TRANSFER_DAILY_COUNT_MAX: '5',
      NEW_USER_PERIOD_HOURS: '0',
      TRANSFER_AMOUNT_MAX: '25000.50',
      BUSINESS_TIME_ZONE: 'Europe/Berlin',
    });
    expect(tuned.transferAmountMax).toBe('25000.50');
    expect(limitsSettings(tuned)).toEqual({ timeZone: 'Europe/Berlin', dailyAmountMax: '100000', dailyCountMax: 5 });
    expect(limitsSettings(loadConfig({ ...base, TRANSFER_DAILY_AMOUNT_MAX: '700' }))).toEqual({
      timeZone: 'Asia/Kolkata',
      dailyAmountMax: '700',
    });
  });

  it('refuses an unknown profile, an unknown zone and a per-transfer maximum above the spec', () => {
    expect(() =>
      loadConfig({
        ...base,
        LIMITS_PROFILE: 'rbi',
        BUSINESS_TIME_ZONE: 'Mars/Olympus',
        TRANSFER_AMOUNT_MAX: '1000000.01',
      }),
    ).toThrow(ConfigError);
    try {
      loadConfig({
        ...base,
        LIMITS_PROFILE: 'rbi',
        BUSINESS_TIME_ZONE: 'Mars/Olympus',
        TRANSFER_AMOUNT_MAX: '1000000.01',
      });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'LIMITS_PROFILE must be one of none, npci, got "rbi"',
        'BUSINESS_TIME_ZONE must be an IANA time zone such as Asia/Kolkata, got "Mars/Olympus"',
        "TRANSFER_AMOUNT_MAX must be between 0.01 and 1000000 (the spec's maximum), got 1000000.01",
      ]);
    }
  });
});
