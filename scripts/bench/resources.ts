import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';

const CLOCK_TICKS = clockTicksPerSecond();

/**
 * CPU seconds (user + system) of a process and all its descendants, from /proc. A child that
 * has exited and been reaped is in its parent's cutime/cstime, so short-lived PostgreSQL
 * backends are counted too. Undefined where /proc is missing or the process is gone.
 */
export function processTreeCpuSeconds(rootPid: number | undefined): number | undefined {
  if (rootPid === undefined || !existsSync(`/proc/${rootPid}/stat`)) return undefined;
  const stats = readAllStats();
  const children = new Map<number, number[]>();
  for (const stat of stats.values()) {
    const list = children.get(stat.ppid) ?? [];
    list.push(stat.pid);
    children.set(stat.ppid, list);
  }
  let ticks = 0;
  const pending = [rootPid];
  while (pending.length > 0) {
    const stat = stats.get(pending.pop()!);
    if (!stat) continue;
    ticks += stat.ticks;
    pending.push(...(children.get(stat.pid) ?? []));
  }
  return ticks / CLOCK_TICKS;
}

/** CPU seconds of this process's children that have exited and been waited for (cutime + cstime). */
export function reapedChildrenCpuSeconds(): number | undefined {
  try {
    const text = readFileSync('/proc/self/stat', 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime */
  ticks: number;
}

function readAllStats(): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which may itself contain spaces and parentheses.
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      const at = (field: number) => Number(fields[field - 3]);
      stats.set(Number(entry), { pid: Number(entry), ppid: at(4), ticks: at(14) + at(15) + at(16) + at(17) });
    } catch {
      // The process ended while we listed /proc.
    }
  }
  return stats;
}

function clockTicksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
}

/** The postmaster's pid from its data directory, when this machine can see it. */
export async function findPostmasterPid(db: ClientBase, knownDataDir?: string): Promise<number | undefined> {
  let dataDir = knownDataDir;
  if (!dataDir) {
    try {
      dataDir = (await db.query('SHOW data_directory')).rows[0].data_directory as string;
    } catch {
      return undefined; // Needs superuser or pg_read_all_settings.
    }
  }
  try {
    const pid = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
    return existsSync(`/proc/${pid}/stat`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function residentMiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
  } catch {
    return undefined;
  }
}

export interface WalCounters {
  /** From the WAL insert position: exact at any moment. */
  bytes: number;
  /** From pg_stat_wal (PostgreSQL 14+), which backends flush about once a second. */
  records?: number;
  fullPageImages?: number;
}

export async function readWal(db: ClientBase): Promise<WalCounters> {
  const position = `pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8`;
  try {
    const row = (
      await db.query(
        `SELECT ${position} AS bytes, wal_records::float8 AS records, wal_fpi::float8 AS fpi FROM pg_stat_wal`,
      )
    ).rows[0];
    return { bytes: row.bytes, records: row.records, fullPageImages: row.fpi };
  } catch {
    return { bytes: (await db.query(`SELECT ${position} AS bytes`)).rows[0].bytes };
  }
}
