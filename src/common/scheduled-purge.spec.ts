import type { Logger } from '@nestjs/common';
import { deleteInChunks, runPurge } from './scheduled-purge';

describe('a scheduled purge', () => {
  it('deletes chunk after chunk until one comes back short, and counts them all', async () => {
    const left = [3, 3, 1];
    const sizes: number[] = [];
    const total = await deleteInChunks(3, async (size) => {
      sizes.push(size);
      return left.shift() ?? 0;
    });
    expect(total).toBe(7);
    expect(sizes).toEqual([3, 3, 3]);
  });

  it('logs what went, nothing when nothing did, and a failure instead of throwing it', async () => {
    const lines: string[] = [];
    const logger = {
      log: (line: string) => lines.push(`log ${line}`),
      error: (line: string) => lines.push(`error ${line}`),
    };
    await runPurge(logger as unknown as Logger, 'Key purge', 'expired keys', async () => 2);
    await runPurge(logger as unknown as Logger, 'Key purge', 'expired keys', async () => 0);
    await runPurge(logger as unknown as Logger, 'Key purge', 'expired keys', () => Promise.reject(new Error('gone')));
    expect(lines).toEqual(['log Purged 2 expired keys', 'error Key purge failed: gone']);
  });
});
