import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { DB_NAME, embeddedPasswords, SUPERUSER } from '../../src/database/embedded-roles';
import { walIncomingDir } from '../../src/database/wal-archive';
import { BackupFailure, type BarmanConnection, connectionFromUrl } from './barman';

/** The database a backup is taken of, and how to let go of it afterwards. */
export interface SourceDatabase {
  connection: BarmanConnection;
  /** Set for the embedded database: its DATA_DIR, whose secrets go beside the backups. */
  embeddedDataDir?: string;
  description: string;
  release(): Promise<void>;
}

export const embeddedDataDir = () => resolve(process.env.DATA_DIR || './.data');

/**
 * External: DATABASE_OWNER_URL, else DATABASE_URL. Embedded: the running postmaster of DATA_DIR,
 * else that database started here, with archiving into BACKUP_DIR, for the time of the backup.
 */
export async function openSourceDatabase(backupDir: string): Promise<SourceDatabase> {
  const externalUrl = process.env.DATABASE_OWNER_URL || process.env.DATABASE_URL;
  if (externalUrl) {
    const connection = connectionFromUrl(externalUrl);
    const which = process.env.DATABASE_OWNER_URL ? 'DATABASE_OWNER_URL' : 'DATABASE_URL';
    return { connection, description: `the database at ${which}`, release: async () => undefined };
  }
  const dataDir = embeddedDataDir();
  if (!existsSync(join(dataDir, 'postgres', 'PG_VERSION'))) {
    throw new BackupFailure(`no embedded database in ${dataDir} (DATA_DIR), and DATABASE_URL is not set`);
  }
  const running = runningEmbeddedConnection(dataDir);
  if (running) {
    return {
      connection: running,
      embeddedDataDir: dataDir,
      description: `the running embedded database in ${dataDir}`,
      release: async () => undefined,
    };
  }
  Logger.overrideLogger(['error']);
  const database = new EmbeddedDatabase({ dataDir, walIncomingDir: walIncomingDir(backupDir) });
  const url = await database.start();
  return {
    connection: connectionFromUrl(url),
    embeddedDataDir: dataDir,
    description: `the embedded database in ${dataDir} (started for the backup)`,
    release: () => database.stop(),
  };
}

/** The superuser's connection to DATA_DIR's postmaster if one is running (the service's), else undefined. */
export function runningEmbeddedConnection(dataDir: string): BarmanConnection | undefined {
  const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  // postmaster.pid: the pid on line 1, the port on line 4.
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const [pid, port] = [Number(lines[0]), Number(lines[3])];
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !Number.isInteger(port)) return undefined;
  return {
    conninfo: `host=127.0.0.1 port=${port} user=${SUPERUSER} dbname=${DB_NAME}`,
    password: embeddedPasswords(dataDir).superuser,
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
