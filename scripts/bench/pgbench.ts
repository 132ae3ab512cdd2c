import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from 'pg';
import { walBytesDuring } from '../lib/bytes-per-transfer';

const run = promisify(execFile);

/** The bound's fixed shape: pgbench's own advice is a scale at least the number of clients it drives. */
export const PGBENCH_SHAPE = { scale: 10, clients: 16, threads: 2, protocol: 'prepared' } as const;
const DATABASE = 'bench_pgbench';

export const PGBENCH_MISSING =
  'pgbench (the C client of PostgreSQL) is not installed, so the bound cannot be measured. ' +
  'Install it (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq), ' +
  'or set PGBENCH to its path; --bound-duration 0 skips the bound.';

/** What PostgreSQL commits per second in pgbench's TPC-B, on this server, in this run. */
export interface PgbenchBound {
  tool: string;
  durationS: number;
  transactions: number;
  tps: number;
  latencyAvgMs?: number;
  walBytesPerTransaction?: number;
}

/** The pgbench binary: $PGBENCH, else the one on PATH; undefined when there is none. */
export function findPgbench(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [env.PGBENCH, 'pgbench'].filter((c): c is string => !!c);
  for (const candidate of candidates) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore', env });
      return candidate;
    } catch {
      // Not there, or not runnable: try the next one.
    }
  }
  return undefined;
}

/** The bound, or why there is none: pgbench is missing, or failed on this server (a role that may not create a database, say). */
export async function boundOrWhyNot(
  db: Client,
  databaseUrl: string,
  durationS: number,
  write: (line: string) => void,
): Promise<{ bound: PgbenchBound } | { missing: string }> {
  const pgbench = findPgbench();
  if (!pgbench) return { missing: PGBENCH_MISSING };
  try {
    return { bound: await measurePgbench(pgbench, db, databaseUrl, durationS, write) };
  } catch (error) {
    return { missing: `pgbench failed: ${(error as Error).message.split('\n')[0]}` };
  }
}

/**
 * Runs pgbench's built-in TPC-B (5 statements and one commit per transaction) against the same
 * server the service uses (same binaries, same settings), in a database of its own that is
 * dropped afterwards: what this machine's database commits per second.
 */
async function measurePgbench(
  pgbench: string,
  db: Client,
  databaseUrl: string,
  durationS: number,
  write: (line: string) => void,
): Promise<PgbenchBound> {
  const url = new URL(databaseUrl);
  url.pathname = `/${DATABASE}`;
  const target = url.toString();
  await db.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await db.query(`CREATE DATABASE ${DATABASE}`);
  try {
    write(`pgbench: initialising scale ${PGBENCH_SHAPE.scale}`);
    await run(pgbench, ['-i', '-q', '-s', String(PGBENCH_SHAPE.scale), target], { maxBuffer: 16 << 20 });
    const s = PGBENCH_SHAPE;
    const load = (seconds: number) =>
      run(pgbench, ['-c', `${s.clients}`, '-j', `${s.threads}`, '-M', s.protocol, '-T', `${seconds}`, '-n', target]);
    await load(Math.min(2, durationS));
    write(`pgbench: measuring TPC-B for ${durationS} s (${describeShape()})`);
    const { result, wal } = await walBytesDuring(db, () => load(durationS));
    const parsed = parsePgbenchOutput(result.stdout);
    const walBytesPerTransaction = Math.round(wal / parsed.transactions);
    return { tool: (await run(pgbench, ['--version'])).stdout.trim(), durationS, ...parsed, walBytesPerTransaction };
  } finally {
    await db.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => undefined);
  }
}

/** Transactions, transactions per second and the mean latency from pgbench's report. */
export function parsePgbenchOutput(stdout: string): Pick<PgbenchBound, 'transactions' | 'tps' | 'latencyAvgMs'> {
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1] ?? NaN);
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1] ?? NaN);
  if (!Number.isFinite(transactions) || !Number.isFinite(tps)) throw new Error(`pgbench said:\n${stdout}`);
  const latency = /latency average = ([\d.]+) ms/.exec(stdout)?.[1];
  return { transactions, tps: Math.round(tps), latencyAvgMs: latency === undefined ? undefined : Number(latency) };
}

export function describeShape(): string {
  const s = PGBENCH_SHAPE;
  return `scale ${s.scale}, ${s.clients} clients, ${s.threads} threads, -M ${s.protocol}`;
}
