import { createHook } from 'node:async_hooks';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { FixedWindowCounter } from './fixed-window-counter';

/** How many timers `work` creates, unref'd ones included. */
async function timersCreatedBy(work: () => unknown): Promise<number> {
  let created = 0;
  const hook = createHook({
    init: (_id, type) => {
      if (type === 'Timeout') created += 1;
    },
  }).enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return created;
}

describe('FixedWindowCounter', () => {
  let clock = 0;
  let counter: FixedWindowCounter;
  beforeEach(() => {
    clock = 1_000_000;
    counter = new FixedWindowCounter(1000, () => clock);
  });
  afterEach(() => counter.close());

  it('counts hits per key within a window that starts at the first hit', () => {
    expect([1, 2, 3].map(() => counter.hit('alice'))).toEqual([1, 2, 3]);
    expect(counter.hit('bob')).toBe(1);
    clock += 999;
    expect(counter.hit('alice')).toBe(4);
    // The window began at alice's first hit: 1,000 ms later a new one starts.
    clock += 1;
    expect(counter.hit('alice')).toBe(1);
    expect(counter.hit('bob')).toBe(1);
  });

  it('says how long the current window has left, for a Retry-After', () => {
    expect(counter.msBeforeNext('alice')).toBe(0);
    counter.hit('alice');
    clock += 400;
    expect(counter.msBeforeNext('alice')).toBe(600);
    clock += 600;
    expect(counter.msBeforeNext('alice')).toBe(0);
  });

  it('counts refused hits too, so a client that keeps trying stays over until its window ends', () => {
    for (let i = 0; i < 15; i += 1) counter.hit('alice');
    clock += 500;
    expect(counter.hit('alice')).toBe(16);
  });

  it('forgets keys idle for ten windows, and keeps the others', () => {
    counter.hit('idle');
    clock += 9_000;
    counter.hit('recent');
    counter.forgetIdle();
    expect(counter.size).toBe(2);
    clock += 1_000;
    counter.forgetIdle();
    expect(counter.size).toBe(1);
    expect(counter.hit('recent')).toBe(1);
    expect(counter.hit('idle')).toBe(1);
  });

  it('arms no timer per key (rate-limiter-flexible’s memory store arms one per key and window)', async () => {
    expect(await timersCreatedBy(() => Array.from({ length: 200 }, (_, i) => counter.hit(`user-${i}`)))).toBe(0);

    // Control: the same 200 keys through the library's memory store.
    const library = new RateLimiterMemory({ points: 10, duration: 60 });
    const keys = Array.from({ length: 200 }, (_, i) => `user-${i}`);
    expect(await timersCreatedBy(() => Promise.all(keys.map((key) => library.consume(key))))).toBe(200);
  });
});
