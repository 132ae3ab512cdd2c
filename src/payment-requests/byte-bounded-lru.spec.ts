import { ByteBoundedLru } from './byte-bounded-lru';

const bytes = (n: number) => Buffer.alloc(n);

describe('ByteBoundedLru', () => {
  it('keeps what fits and drops the least recently used past the budget', () => {
    const cache = new ByteBoundedLru<Buffer>(10, (value) => value.length);
    cache.set('a', bytes(4));
    cache.set('b', bytes(4));
    expect(cache.get('a')?.length).toBe(4); // a is now the most recently used
    cache.set('c', bytes(4));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.length).toBe(4);
    expect(cache.get('c')?.length).toBe(4);
    expect(cache.size).toBe(8);
  });

  it('counts a replaced key once and never keeps a buffer larger than the budget', () => {
    const cache = new ByteBoundedLru<Buffer>(10, (value) => value.length);
    cache.set('a', bytes(6));
    cache.set('a', bytes(3));
    expect(cache.size).toBe(3);
    cache.set('huge', bytes(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')?.length).toBe(3);
  });

  it('keeps nothing with a budget of 0', () => {
    const cache = new ByteBoundedLru<Buffer>(0, (value) => value.length);
    cache.set('a', bytes(1));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
