import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client, type DatabaseError, type Pool } from 'pg';
import { CallbackQueryClient } from '../../src/database/callback-query-client';
import { DiskFullWindow } from '../../src/database/disk-full-window';
import { createPgPool } from '../../src/database/pg-pool';
import { testUrl, withClient } from '../support/db';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;

/** 25 rows of 600 characters each: about 19 kB of strings per answer. */
const ROWS = `SELECT g AS id, repeat('x', 600) AS payload FROM generate_series(1, 25) g`;

/**
 * Bytes that reached the old space while `client` answered 100 queries whose answers nobody kept,
 * after two collections of the young generation (none of the old).
 */
async function promotedByAnswers(client: Client): Promise<number> {
  collectGarbage();
  const before = oldSpaceUsed();
  for (let i = 0; i < 100; i += 1) {
    const { rows } = await client.query<{ payload: string }>(ROWS);
    expect(rows).toHaveLength(25);
  }
  for (let i = 0; i < 2; i += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage({ type: 'minor' });
  }
  return oldSpaceUsed() - before;
}

describe("the service's pg pool", () => {
  let pool: Pool;

  beforeAll(() => {
    pool = createPgPool(testUrl(), 2, { faults: new DiskFullWindow() });
  });
  afterAll(() => pool.end());

  it("answers a client's promise queries as pg does: rows, values, errors with their code and the caller's stack", async () => {
    const client = await pool.connect();
    try {
      expect((await client.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
      expect((await client.query<{ sum: number }>('SELECT $1::int + $2::int AS sum', [2, 3])).rows).toEqual([
        { sum: 5 },
      ]);
      expect((await client.query({ text: 'SELECT $1::text AS t', values: ['a'] })).rows).toEqual([{ t: 'a' }]);
      const error = (await client.query('SELECT 1 / 0').catch((e: unknown) => e)) as DatabaseError;
      expect(error.code).toBe('22012');
      // As with pg's own promise: the stack is the caller's side, not the socket read that parsed the error.
      expect(error.stack).not.toMatch(/onStreamRead|stream_base_commons/);
      // The connection is still usable after an error.
      expect((await client.query<{ n: number }>('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
    } finally {
      client.release();
    }
  });

  it('shows the disk-full window the errors of callback and promise queries alike', async () => {
    const noted: string[] = [];
    const watched = createPgPool(testUrl(), 1, {
      faults: new (class extends DiskFullWindow {
        override note(error: unknown): void {
          noted.push((error as DatabaseError).code!);
        }
      })(),
    });
    try {
      await watched.query('SELECT 1 / 0').catch(() => undefined);
      const client = await watched.connect();
      await client.query('SELECT nope').catch(() => undefined);
      client.release();
      expect(noted).toEqual(['22012', '42703']);
    } finally {
      await watched.end();
    }
  });

  it("control: pg's own promise queries keep their answers until a full collection", async () => {
    expect(await withClient(testUrl(), promotedByAnswers)).toBeGreaterThan(1_000_000);
  });

  it('lets the young generation collect the answers of its clients', async () => {
    expect(await withClient(testUrl(), promotedByAnswers, CallbackQueryClient)).toBeLessThan(300_000);
    const pooled = await pool.connect();
    try {
      expect(await promotedByAnswers(pooled as unknown as Client)).toBeLessThan(300_000);
    } finally {
      pooled.release();
    }
  });
});
