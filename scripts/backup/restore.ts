/**
 * npm run restore -- --to <ISO-8601 time | latest> --data-dir <new DATA_DIR>
 *
 * Restores the embedded database kept in BACKUP_DIR as it was at that time into a new DATA_DIR:
 * Barman lays down the last base backup finished before the time with the archived WAL, then
 * PostgreSQL replays it up to the time (or to the end of the archive: latest) and promotes, so
 * that `DATA_DIR=<new DATA_DIR> npm start` serves exactly the transfers committed before it.
 * If the embedded database in DATA_DIR (./.data) is running, its current WAL is archived first.
 * Prints what it did; exits 0 when restored, 1 with a one-line reason otherwise, 2 on bad usage.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { createPrivateDirectory } from '../../src/config/private-files';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { postgresOsUser } from '../../src/database/postmaster-process';
import { BARMAN_SERVER } from '../../src/database/wal-archive';
import {
  Barman,
  type BarmanBackup,
  BackupFailure,
  exitWithFailure,
  installBackupTools,
  requiredBackupDir,
} from './barman';
import { embeddedDataDir, runningEmbeddedConnection } from './source-database';

const USAGE =
  'usage: npm run restore -- --to <ISO-8601 time, e.g. 2026-11-27T10:15:00Z | latest> --data-dir <new DATA_DIR>';
/** A date, a time and a zone: a time without its zone would be read in whatever zone the machine is in. */
const ISO_8601_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/;
/** What Barman writes into postgresql.auto.conf for the recovery; the restored cluster needs none of it afterwards. */
const RECOVERY_SETTINGS = ['restore_command', 'recovery_end_command', 'recovery_target_time', 'recovery_target_action'];
/** How long the running database may take to hand its current WAL segment to the archive. */
const ARCHIVE_WAIT_SECONDS = 60;

type Target = Date | 'latest';

async function main(): Promise<number> {
  const args = restoreArguments();
  if (!args) {
    console.error(USAGE);
    return 2;
  }
  const { target, dataDir } = args;
  const backupDir = requiredBackupDir();
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new BackupFailure(`${dataDir} is not empty: restore into a new or empty DATA_DIR`);
  }
  if (target !== 'latest' && target.getTime() > Date.now()) {
    throw new BackupFailure(`${target.toISOString()} is in the future: use --to latest for everything archived`);
  }
  const { barman, sourceRunning } = openBarman(backupDir);
  const base = chooseBaseBackup(await barman.backups(), target, backupDir);
  if (!barman.hasEmbeddedSecrets) {
    throw new BackupFailure(
      `${backupDir} holds no embedded database's secrets (a backup of an external database?): restore it with barman restore`,
    );
  }
  if (sourceRunning) await archiveCurrentWal(barman);
  createPrivateDirectory(dataDir);
  barman.restoreSecrets(dataDir);
  const databaseDir = join(dataDir, 'postgres');
  const restoreArgs = ['restore', BARMAN_SERVER, base.id, databaseDir];
  if (target !== 'latest') restoreArgs.push('--target-time', target.toISOString(), '--target-action', 'promote');
  console.log(`Restoring base backup ${base.id} (finished ${base.endTime.toISOString()}) into ${databaseDir}`);
  process.stdout.write(indent(await barman.run(restoreArgs)));
  handOverToPostgres(databaseDir);
  const recovered = await recover(dataDir);
  console.log(
    `Restored ${dataDir} to ${target === 'latest' ? 'the end of the archived WAL' : target.toISOString()}: ` +
      `${recovered.transactions} transactions, the latest created at ${recovered.latest ?? 'never'}. ` +
      `Start it with DATA_DIR=${dataDir} npm start`,
  );
  return 0;
}

function restoreArguments(): { target: Target; dataDir: string } | undefined {
  try {
    const { values } = parseArgs({ options: { to: { type: 'string' }, 'data-dir': { type: 'string' } } });
    const to = values.to?.trim();
    const dataDir = values['data-dir']?.trim();
    if (!to || !dataDir) return undefined;
    if (to === 'latest') return { target: 'latest', dataDir: resolve(dataDir) };
    const time = new Date(to);
    if (!ISO_8601_WITH_ZONE.test(to) || Number.isNaN(time.getTime())) return undefined;
    return { target: time, dataDir: resolve(dataDir) };
  } catch {
    return undefined;
  }
}

/** Barman on BACKUP_DIR, following the embedded database in DATA_DIR (./.data) where it now listens, if it runs. */
function openBarman(backupDir: string): { barman: Barman; sourceRunning: boolean } {
  if (!existsSync(join(backupDir, 'barman.conf'))) {
    throw new BackupFailure(`no backup in ${backupDir}: take one with npm run backup`);
  }
  installBackupTools();
  const running = runningEmbeddedConnection(embeddedDataDir());
  const barman = new Barman(backupDir, running ?? { conninfo: '', password: undefined });
  if (running) barman.writeConfig();
  return { barman, sourceRunning: running !== undefined };
}

/**
 * Has the running database hand the WAL segment it is writing to the archive now, so that the
 * most recent commits can be restored too; a stopped one archived everything when it stopped.
 */
async function archiveCurrentWal(barman: Barman): Promise<void> {
  await barman.run([
    'switch-wal',
    '--force',
    '--archive',
    '--archive-timeout',
    String(ARCHIVE_WAIT_SECONDS),
    BARMAN_SERVER,
  ]);
  console.log(`Archived the current WAL of the running database in ${embeddedDataDir()}`);
}

/** The last base backup finished by the target time (a recovery can only start from one). */
function chooseBaseBackup(backups: BarmanBackup[], target: Target, backupDir: string): BarmanBackup {
  if (backups.length === 0) throw new BackupFailure(`no backup in ${backupDir}: take one with npm run backup`);
  const base = target === 'latest' ? backups.at(-1) : backups.filter((backup) => backup.endTime <= target).at(-1);
  if (!base) {
    throw new BackupFailure(
      `${(target as Date).toISOString()} is before the first backup (finished ${backups[0].endTime.toISOString()}): ` +
        'nothing to restore it from',
    );
  }
  return base;
}

/** As root, PostgreSQL runs as the postgres OS user, which must own the restored files. */
function handOverToPostgres(databaseDir: string): void {
  if (process.getuid?.() !== 0) return;
  const user = postgresOsUser();
  if (!user) throw new BackupFailure('the postgres OS user does not exist: start the service once to create it');
  execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, databaseDir]);
}

/**
 * Starts the restored cluster once: PostgreSQL replays the WAL to the target and promotes (it
 * only accepts connections then), the recovery settings are reset, and it stops again.
 */
async function recover(dataDir: string): Promise<{ transactions: number; latest: string | undefined }> {
  Logger.overrideLogger(['error']);
  const database = new EmbeddedDatabase({ dataDir });
  try {
    const client = new Client({ connectionString: await database.start() });
    await client.connect();
    try {
      const { rows } = await client.query<{ recovering: boolean }>('SELECT pg_is_in_recovery() AS recovering');
      if (rows[0].recovering) throw new BackupFailure('PostgreSQL is still in recovery after start');
      for (const setting of RECOVERY_SETTINGS) await client.query(`ALTER SYSTEM RESET ${setting}`);
      return await transactionSummary(client);
    } finally {
      await client.end();
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new BackupFailure(`recovery did not complete: ${reason} (${dataDir} is left for inspection)`);
  } finally {
    await database.stop();
  }
}

async function transactionSummary(client: Client): Promise<{ transactions: number; latest: string | undefined }> {
  const { rows } = await client.query<{ exists: boolean }>(`SELECT to_regclass('transactions') IS NOT NULL AS exists`);
  if (!rows[0].exists) return { transactions: 0, latest: undefined };
  const summary = await client.query<{ transactions: number; latest: Date | null }>(
    'SELECT count(*)::int AS transactions, max(created_at) AS latest FROM transactions',
  );
  const { transactions, latest } = summary.rows[0];
  return { transactions, latest: latest?.toISOString() };
}

const indent = (text: string) => text.replace(/^(?=.)/gm, '  ');

main().then((code) => process.exit(code), exitWithFailure('restore'));
