import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { postgresOsUser } from './postmaster-process';

/** The one server in the Barman configuration that `npm run backup` writes under BACKUP_DIR. */
export const BARMAN_SERVER = 'payments';
/**
 * Bounds what a lost machine can take with it: PostgreSQL hands a WAL segment to the archive when
 * it is full or, with writes since the last one, after this long.
 */
export const ARCHIVE_TIMEOUT_SECONDS = 60;

/** Barman's incoming directory for that server: where PostgreSQL's archive_command copies each WAL segment. */
export function walIncomingDir(backupDir: string): string {
  return join(backupDir, BARMAN_SERVER, 'incoming');
}

/**
 * The postgres flags that archive every finished WAL segment into `incomingDir` (Barman's
 * file-based archiver). `test ! -f` refuses to overwrite a segment already there, as PostgreSQL's
 * documentation asks of an archive_command.
 */
export function walArchiveFlags(incomingDir: string): string[] {
  const target = shellQuote(`${incomingDir.replaceAll('%', '%%')}/%f`);
  return [
    '-c',
    'archive_mode=on',
    '-c',
    `archive_command=test ! -f ${target} && cp %p ${target}`,
    '-c',
    `archive_timeout=${ARCHIVE_TIMEOUT_SECONDS}`,
  ];
}

/**
 * Creates the incoming directory for the OS user PostgreSQL runs as (root: `postgres`), and checks
 * that user can write it: archiving that fails only shows as WAL piling up, so it must not start so.
 */
export function prepareWalIncomingDir(incomingDir: string): void {
  mkdirSync(incomingDir, { recursive: true, mode: 0o711 });
  const user = process.getuid?.() === 0 ? postgresOsUser() : undefined;
  if (!user) return;
  chownSync(incomingDir, user.uid, user.gid);
  chmodSync(incomingDir, 0o700);
  try {
    execFileSync('test', ['-w', incomingDir, '-a', '-x', incomingDir], { uid: user.uid, gid: user.gid });
  } catch {
    throw new Error(
      `BACKUP_DIR: the postgres OS user cannot write ${incomingDir}; let it pass through the folders above (chmod o+x)`,
    );
  }
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
