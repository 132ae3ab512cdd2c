import { type Client, Pool, type PoolClient } from 'pg';
import type { BenchOptions } from './options';
import { type Outcome, type PhaseLoad, Recorder, runClosedLoop } from './load';

/**
 * pgbench's built-in "TPC-B (sort of)": five statements and one commit per transaction, on
 * its four tables, in a schema of their own so the service's tables are untouched, driven through
 * Node's pg driver. That measures the driver's overhead, not the bound (pgbench.ts measures that).
 */
const SCHEMA = 'bench_tpcb';
const ACCOUNTS_PER_BRANCH = 100_000;
const TELLERS_PER_BRANCH = 10;

export async function createTpcbTables(db: Client, scale: number): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await db.query(`CREATE SCHEMA ${SCHEMA}`);
  // Column types and fillers as pgbench -i creates them.
  await db.query(`
    CREATE TABLE ${SCHEMA}.branches (bid int PRIMARY KEY, bbalance int NOT NULL, filler char(88));
    CREATE TABLE ${SCHEMA}.tellers (tid int PRIMARY KEY, bid int NOT NULL, tbalance int NOT NULL, filler char(84));
    CREATE TABLE ${SCHEMA}.accounts (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL, filler char(84));
    CREATE TABLE ${SCHEMA}.history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
    INSERT INTO ${SCHEMA}.branches SELECT b, 0, '' FROM generate_series(1, ${scale}) b;
    INSERT INTO ${SCHEMA}.tellers SELECT t, (t - 1) / ${TELLERS_PER_BRANCH} + 1, 0, '' FROM generate_series(1, ${scale * TELLERS_PER_BRANCH}) t;
    INSERT INTO ${SCHEMA}.accounts SELECT a, (a - 1) / ${ACCOUNTS_PER_BRANCH} + 1, 0, '' FROM generate_series(1, ${scale * ACCOUNTS_PER_BRANCH}) a;`);
  await db.query(`VACUUM ANALYZE ${SCHEMA}.branches, ${SCHEMA}.tellers, ${SCHEMA}.accounts`);
}

export async function dropTpcbTables(db: Client): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
}

/** One TPC-B transaction through the pool, with named (prepared) statements as pgbench -M prepared. */
export function tpcbOperation(pool: Pool, scale: number): () => Promise<Outcome> {
  const random = (max: number) => 1 + Math.floor(Math.random() * max);
  return async () => {
    const aid = random(scale * ACCOUNTS_PER_BRANCH);
    const tid = random(scale * TELLERS_PER_BRANCH);
    const bid = random(scale);
    const delta = Math.floor(Math.random() * 10_001) - 5_000;
    const client: PoolClient = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query({
        name: 'tpcb-1',
        text: `UPDATE ${SCHEMA}.accounts SET abalance = abalance + $1 WHERE aid = $2`,
        values: [delta, aid],
      });
      await client.query({
        name: 'tpcb-2',
        text: `SELECT abalance FROM ${SCHEMA}.accounts WHERE aid = $1`,
        values: [aid],
      });
      await client.query({
        name: 'tpcb-3',
        text: `UPDATE ${SCHEMA}.tellers SET tbalance = tbalance + $1 WHERE tid = $2`,
        values: [delta, tid],
      });
      await client.query({
        name: 'tpcb-4',
        text: `UPDATE ${SCHEMA}.branches SET bbalance = bbalance + $1 WHERE bid = $2`,
        values: [delta, bid],
      });
      await client.query({
        name: 'tpcb-5',
        text: `INSERT INTO ${SCHEMA}.history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)`,
        values: [tid, bid, aid, delta],
      });
      await client.query('COMMIT');
      return { outcome: 'committed', ok: true };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      return { outcome: `error: ${(error as Error).message}`, ok: false };
    } finally {
      client.release();
    }
  };
}

/**
 * The same TPC-B driven through Node's pg Pool (one round trip per statement): what the driver
 * and the event loop cost on top of PostgreSQL. Not the bound; only with --driver-tpcb.
 */
export async function measureDriverOverhead(
  db: Client,
  databaseUrl: string,
  options: BenchOptions,
  measure: (label: string, drive: (recorder: Recorder) => Promise<PhaseLoad>) => Promise<void>,
): Promise<void> {
  const poolSize = Number(process.env.DB_POOL_SIZE ?? 20);
  await createTpcbTables(db, options.tpcbScale);
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize });
  try {
    const operation = tpcbOperation(pool, options.tpcbScale);
    const warmUpS = Math.min(2, options.driverTpcbDurationS);
    await runClosedLoop(new Recorder('warm-up', 'closed'), options.concurrency, warmUpS, operation);
    await measure(
      `driver overhead: TPC-B through node-postgres, pool ${poolSize}, scale ${options.tpcbScale}`,
      (recorder) => runClosedLoop(recorder, options.concurrency, options.driverTpcbDurationS, operation),
    );
  } finally {
    await pool.end();
    await dropTpcbTables(db);
  }
}
