import type { ClientBase, Pool, PoolClient } from 'pg';

/**
 * `work` on one connection between BEGIN and COMMIT; any error rolls back and is thrown on. The
 * rollback's own failure (the connection is gone) is not the caller's news: the first error is.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

// For a caller that must decide itself how its connection goes back to the pool (the scheduled
// transfer runner destroys it after an unexpected failure): the same statements, one at a time.

export async function beginTransaction(client: ClientBase): Promise<void> {
  await client.query('BEGIN');
}

export async function commitTransaction(client: ClientBase): Promise<void> {
  await client.query('COMMIT');
}

/** Never throws: a failed rollback (the connection is gone) is not the caller's news. */
export async function rollbackQuietly(client: ClientBase): Promise<void> {
  await client.query('ROLLBACK').catch(() => undefined);
}
