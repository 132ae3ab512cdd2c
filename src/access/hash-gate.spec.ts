import { ApiError } from '../common/errors/api-error';
import { gatedHash, HASHES_QUEUED, HASHES_RUNNING } from './hash-gate';

describe('gatedHash', () => {
  it('runs HASHES_RUNNING at once, queues HASHES_QUEUED, refuses the next with 503, then serves the queue', async () => {
    const releases: (() => void)[] = [];
    let started = 0;
    const slowHash = () =>
      new Promise<number>((resolve) => {
        started += 1;
        releases.push(() => resolve(started));
      });
    const accepted = Array.from({ length: HASHES_RUNNING + HASHES_QUEUED }, () => gatedHash(slowHash));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(HASHES_RUNNING);

    const refused = await gatedHash(slowHash).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('service-unavailable');

    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(accepted);
    expect(started).toBe(HASHES_RUNNING + HASHES_QUEUED);
    // Every slot was handed back: a new hash starts at once.
    const next = gatedHash(slowHash);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(HASHES_RUNNING + HASHES_QUEUED + 1);
    releases.shift()!();
    await next;
  });
});
