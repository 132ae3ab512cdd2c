import type { DatabaseError, Pool } from 'pg';
import { DiskFullWindow } from '../../src/database/disk-full-window';
import { createPgPool } from '../../src/database/pg-pool';
import { testUrl } from '../support/db';

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
});
