import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client, type DatabaseError, type Pool } from 'pg';
import { CallbackQueryClient } from '../../src/database/callback-query-client';
import { DiskFullWindow } from '../../src/database/disk-full-window';
import { createPgPool } from '../../src/database/pg-pool';

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
    pool = createPgPool(process.env.TEST_DATABASE_URL!, 2, new DiskFullWindow());
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

  it("control: pg's own promise queries keep their answers until a full collection", async () => {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      expect(await promotedByAnswers(client)).toBeGreaterThan(1_000_000);
    } finally {
      await client.end();
    }
  });

  it('lets the young generation collect the answers of its clients', async () => {
    const client = new CallbackQueryClient({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      expect(await promotedByAnswers(client)).toBeLessThan(300_000);
    } finally {
      await client.end();
    }
    const pooled = await pool.connect();
    try {
      expect(await promotedByAnswers(pooled as unknown as Client)).toBeLessThan(300_000);
    } finally {
      pooled.release();
    }
  });
});
