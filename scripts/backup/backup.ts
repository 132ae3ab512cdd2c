/**
 * npm run backup
 *
 * Takes a base backup with Barman (pg_basebackup underneath) into BACKUP_DIR: of the embedded
 * database in DATA_DIR (./.data), while the service runs or, when it does not, started here for
 * the time of the backup; or of DATABASE_OWNER_URL, else DATABASE_URL. The WAL that makes
 * point-in-time recovery possible reaches BACKUP_DIR continuously by PostgreSQL's archive_command
 * (the embedded database sets it when the service runs with BACKUP_DIR). Prints what it did; exits 0
 * when the backup is complete with its WAL, 1 with a one-line reason otherwise, 2 on bad usage.
 */
import { parseArgs } from 'node:util';
import { BARMAN_SERVER } from '../../src/database/wal-archive';
import { Barman, BackupFailure, exitWithFailure, installBackupTools, requiredBackupDir } from './barman';
import { openSourceDatabase, type SourceDatabase } from './source-database';

/** How long the backup waits for the last WAL segment it needs to reach the archive. */
const WAL_WAIT_SECONDS = 120;

async function main(): Promise<number> {
  try {
    parseArgs({ options: {} });
  } catch {
    console.error('usage: npm run backup (BACKUP_DIR, and DATA_DIR or DATABASE_URL, from the environment)');
    return 2;
  }
  const backupDir = requiredBackupDir();
  installBackupTools();
  const source = await openSourceDatabase(backupDir);
  try {
    const barman = new Barman(backupDir, source.connection);
    barman.writeConfig();
    console.log(`Backing up ${source.description} into ${backupDir} with Barman`);
    await checkServer(barman, source);
    const startedAt = Date.now();
    const output = await barman.run(['backup', BARMAN_SERVER, '--wait', '--wait-timeout', String(WAL_WAIT_SECONDS)]);
    process.stdout.write(indent(output));
    const latest = (await barman.backups()).at(-1);
    if (!latest) throw new BackupFailure('Barman reported no finished backup; see barman.log in BACKUP_DIR');
    if (source.embeddedDataDir) barman.keepSecrets(source.embeddedDataDir);
    const restoreHint = source.embeddedDataDir
      ? 'restore with: npm run restore -- --to <ISO-8601 time | latest> --data-dir <new DATA_DIR>'
      : `restore with: barman -c ${barman.configFile} restore ${BARMAN_SERVER} auto <directory> --target-time <time>`;
    console.log(
      `Base backup ${latest.id} finished at ${latest.endTime.toISOString()} in ${Date.now() - startedAt} ms; ${restoreHint}`,
    );
    return 0;
  } finally {
    await source.release();
  }
}

/**
 * Barman's own checks. A WAL archive that has received nothing yet fails them: one segment is
 * archived now, which also proves that the shipping works.
 */
async function checkServer(barman: Barman, source: SourceDatabase): Promise<void> {
  try {
    await barman.run(['check', BARMAN_SERVER]);
  } catch (error) {
    if (!(error instanceof BackupFailure)) throw error;
    if (!/^barman check failed: WAL archive: FAILED[^;]*$/.test(error.message)) {
      if (!source.embeddedDataDir) throw error;
      throw new BackupFailure(`${error.message} (is the service running with this BACKUP_DIR?)`);
    }
    await barman.run([
      'switch-wal',
      '--force',
      '--archive',
      '--archive-timeout',
      String(WAL_WAIT_SECONDS),
      BARMAN_SERVER,
    ]);
    await barman.run(['check', BARMAN_SERVER]);
  }
}

const indent = (text: string) => text.replace(/^(?=.)/gm, '  ');

// Exit explicitly: the embedded database's exit hook would otherwise end the process with 0.
main().then((code) => process.exit(code), exitWithFailure('backup'));
