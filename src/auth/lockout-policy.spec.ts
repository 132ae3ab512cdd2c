import { loadConfig } from '../config/app-config';
import { longestSharedLockSeconds, mostGuessesFromUnknownAddresses, sharedLockSeconds } from './lockout-policy';

const DAY_SECONDS = 86_400;

describe('lockout policy', () => {
  it.each([
    ['development', {}],
    ['production', { NODE_ENV: 'production' }],
  ])(
    'allows at most 25 PIN checks a day from addresses the owner never used, under the %s defaults',
    (_profile, env) => {
      const config = loadConfig({ JWT_SECRET: 'x'.repeat(32), ...env });
      const perDay = mostGuessesFromUnknownAddresses(
        DAY_SECONDS,
        config.loginMaxFailedAttempts,
        config.loginLockoutSeconds,
      );
      // The README's Security section states this number.
      expect(perDay).toBe(25);
      // After the first day the 16 h lock leaves room for two batches in any 24 h.
      expect(longestSharedLockSeconds(config.loginLockoutSeconds)).toBe(16 * 3600);
    },
  );

  it('grows the shared lock 4x at each lockout up to 64x LOGIN_LOCKOUT_SECONDS, and never further', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((lockCount) => sharedLockSeconds(lockCount, 1))).toEqual([
      1, 4, 16, 64, 64, 64, 64,
    ]);
  });

  it('counts one batch per lock that starts within the window', () => {
    // Batches at 0, 1, 5, 21 and 85 s (1 s locks): four fit in 84 s, five in 85 s.
    expect(mostGuessesFromUnknownAddresses(84, 5, 1)).toBe(20);
    expect(mostGuessesFromUnknownAddresses(85, 5, 1)).toBe(25);
    expect(mostGuessesFromUnknownAddresses(149, 3, 1)).toBe(18);
  });
});
