import { timeOrderedUuid } from './time-ordered-uuid';

describe('timeOrderedUuid', () => {
  it('is a version 7, variant 1 UUID carrying the time in milliseconds', () => {
    const at = Date.UTC(2026, 10, 27, 21, 30, 0, 123);
    const id = timeOrderedUuid(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts by time, and differs within one millisecond', () => {
    const at = Date.now();
    expect(timeOrderedUuid(at) < timeOrderedUuid(at + 1)).toBe(true);
    expect(timeOrderedUuid(at)).not.toBe(timeOrderedUuid(at));
  });
});
