import { nextAttemptDelayMs } from './retry-schedule';

describe('nextAttemptDelayMs', () => {
  const schedule = [5000, 300_000];

  it('follows the schedule after each failed attempt, then gives up', () => {
    expect(nextAttemptDelayMs(schedule, 1, () => 0.5)).toBe(5000);
    expect(nextAttemptDelayMs(schedule, 2, () => 0.5)).toBe(300_000);
    expect(nextAttemptDelayMs(schedule, 3, () => 0.5)).toBeNull();
    expect(nextAttemptDelayMs([], 1, () => 0.5)).toBeNull();
  });

  it('spreads each delay by at most 20 % either way', () => {
    expect(nextAttemptDelayMs(schedule, 1, () => 0)).toBe(4000);
    expect(nextAttemptDelayMs(schedule, 1, () => 0.999999)).toBe(6000);
  });
});
