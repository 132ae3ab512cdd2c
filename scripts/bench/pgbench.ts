import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from 'pg';
import { type LatencySummary, summarise } from './load';
import { processTreeCpuSeconds, readWal, reapedChildrenCpuSeconds } from './resources';

const run = promisify(execFile);

/** The bound's fixed shape: pgbench's own advice is a scale at least the number of clients it drives. */
export const PGBENCH_SHAPE = { scale: 10, clients: 16, threads: 2, protocol: 'prepared' } as const;
const DATABASE = 'bench_pgbench';

export const PGBENCH_MISSING =
  'pgbench (the C client of PostgreSQL) is not installed, so the bound cannot be measured. ' +
  'Install it (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq), ' +
  'or set PGBENCH to its path; --bound-duration 0 skips the bound.';

/** What PostgreSQL commits per second in pgbench's TPC-B, on this server, and what each transaction cost it. */
export interface PgbenchBound {
  tool: string;
  shape: typeof PGBENCH_SHAPE;
  durationS: number;
  transactions: number;
  tps: number;
  latencyAvgMs?: number;
  cpuMsPerTransaction: { postgres?: number; pgbench?: number };
  walBytesPerTransaction: number;
  /** With --rate: pgbench's own latency at the rate the service is offered, the database's tail. */
  atRate?: PgbenchTail;
}

/** pgbench's TPC-B throttled to a rate (`-R`), latency counted from each transaction's scheduled start. */
export interface PgbenchTail {
  rate: number;
  transactions: number;
  latencyMs: LatencySummary;
  /** PostgreSQL's CPU per transaction during the throttled run: what the open loop's CPU per transfer is held to. */
  postgresCpuMsPerTransaction?: number;
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
  postmasterPid: number | undefined,
  durationS: number,
  write: (line: string) => void,
  rate?: number,
): Promise<{ bound: PgbenchBound } | { missing: string }> {
  const pgbench = findPgbench();
  if (!pgbench) return { missing: PGBENCH_MISSING };
  try {
    return { bound: await measurePgbench(pgbench, db, databaseUrl, postmasterPid, durationS, write, rate) };
  } catch (error) {
    return { missing: `pgbench failed: ${(error as Error).message.split('\n')[0]}` };
  }
}

/**
 * Runs pgbench's built-in TPC-B against the same server the service uses (same binaries, same
 * settings), in a database of its own that is dropped afterwards. CPU is read from /proc: the
 * PostgreSQL process tree, and pgbench's own as this process's reaped children. With a rate, it
 * then runs the same TPC-B throttled to that rate, for the database's own tail at it.
 */
export async function measurePgbench(
  pgbench: string,
  db: Client,
  databaseUrl: string,
  postmasterPid: number | undefined,
  durationS: number,
  write: (line: string) => void,
  rate?: number,
): Promise<PgbenchBound> {
  const url = new URL(databaseUrl);
  url.pathname = `/${DATABASE}`;
  const target = url.toString();
  await db.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await db.query(`CREATE DATABASE ${DATABASE}`);
  try {
    write(`pgbench: initialising scale ${PGBENCH_SHAPE.scale}`);
    await run(pgbench, ['-i', '-q', '-s', String(PGBENCH_SHAPE.scale), target], { maxBuffer: 16 << 20 });
    const load = (seconds: number, extra: string[] = []) =>
      run(
        pgbench,
        [
          ...['-c', String(PGBENCH_SHAPE.clients), '-j', String(PGBENCH_SHAPE.threads)],
          ...['-M', PGBENCH_SHAPE.protocol, '-T', String(seconds), '-n', ...extra, target],
        ],
        { maxBuffer: 16 << 20 },
      );
    await load(Math.min(2, durationS));
    write(`pgbench: measuring TPC-B for ${durationS} s (${describeShape()})`);
    const before = {
      postgres: processTreeCpuSeconds(postmasterPid),
      self: reapedChildrenCpuSeconds(),
      wal: await readWal(db),
    };
    const { stdout } = await load(durationS);
    const after = {
      postgres: processTreeCpuSeconds(postmasterPid),
      self: reapedChildrenCpuSeconds(),
      wal: await readWal(db),
    };
    const transactions = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1] ?? NaN);
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1] ?? NaN);
    if (!Number.isFinite(transactions) || !Number.isFinite(tps)) throw new Error(`pgbench said:\n${stdout}`);
    const perTransaction = (seconds?: number) => msPerTransaction(seconds, transactions);
    const latency = /latency average = ([\d.]+) ms/.exec(stdout)?.[1];
    const atRate =
      rate === undefined
        ? undefined
        : await measureTail(rate, durationS, load, write, () => processTreeCpuSeconds(postmasterPid));
    return {
      tool: (await run(pgbench, ['--version'])).stdout.trim(),
      shape: PGBENCH_SHAPE,
      durationS,
      transactions,
      tps: Math.round(tps),
      latencyAvgMs: latency === undefined ? undefined : Number(latency),
      cpuMsPerTransaction: {
        postgres: perTransaction(delta(before.postgres, after.postgres)),
        pgbench: perTransaction(delta(before.self, after.self)),
      },
      walBytesPerTransaction: Math.round((after.wal.bytes - before.wal.bytes) / transactions),
      atRate,
    };
  } finally {
    await db.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => undefined);
  }
}

/** The same TPC-B throttled to `rate` (`-R`), each transaction's latency from pgbench's log (`-l`). */
async function measureTail(
  rate: number,
  durationS: number,
  load: (seconds: number, extra: string[]) => Promise<unknown>,
  write: (line: string) => void,
  postgresCpuSeconds: () => number | undefined,
): Promise<PgbenchTail> {
  write(`pgbench: measuring TPC-B at ${rate}/s for ${durationS} s (the database's own tail at the offered rate)`);
  const logs = mkdtempSync(join(tmpdir(), 'bench-pgbench-'));
  try {
    const cpuBefore = postgresCpuSeconds();
    await load(durationS, ['-R', String(rate), '-l', '--log-prefix', join(logs, 'tail')]);
    const cpuSeconds = delta(cpuBefore, postgresCpuSeconds());
    const texts = readdirSync(logs).map((name) => readFileSync(join(logs, name), 'utf8'));
    const tail = tailFromPgbenchLogs(texts);
    return { rate, ...tail, postgresCpuMsPerTransaction: msPerTransaction(cpuSeconds, tail.transactions) };
  } finally {
    rmSync(logs, { recursive: true, force: true });
  }
}

/**
 * Percentiles of pgbench's per-transaction logs (`-l`, one file per thread): the third field is
 * the latency in microseconds, which under `-R` counts from the scheduled start, as the bench's
 * open loop counts from the intended send time.
 */
export function tailFromPgbenchLogs(texts: string[]): Omit<PgbenchTail, 'rate'> {
  const latenciesMs = texts
    .flatMap((text) => text.split('\n'))
    .map((line) => line.split(' '))
    .filter((fields) => fields.length >= 6)
    .map((fields) => Number(fields[2]) / 1000)
    .filter(Number.isFinite);
  if (latenciesMs.length === 0) throw new Error('pgbench logged no transaction at the offered rate');
  return { transactions: latenciesMs.length, latencyMs: summarise(latenciesMs) };
}

export function describeShape(): string {
  const s = PGBENCH_SHAPE;
  return `scale ${s.scale}, ${s.clients} clients, ${s.threads} threads, -M ${s.protocol}`;
}

/** CPU seconds spread over transactions, in ms each, to the microsecond. */
function msPerTransaction(seconds: number | undefined, transactions: number): number | undefined {
  return seconds === undefined ? undefined : Math.round((seconds * 1e6) / transactions) / 1000;
}

function delta(before?: number, after?: number): number | undefined {
  return before === undefined || after === undefined ? undefined : after - before;
}
