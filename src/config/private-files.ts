import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * DATA_DIR holds secrets (the JWT secret, the embedded database's password): another local user
 * who can write there could swap them and forge admin tokens, or replace the database's files.
 * These checks refuse such a directory or file at start, each with a one-line fix.
 */
const WRITABLE_BY_OTHERS = 0o022;
const READABLE_BY_OTHERS = 0o044;

const ownUid = () => process.getuid?.() ?? -1;
const octal = (mode: number) => (mode & 0o777).toString(8).padStart(3, '0');

/** A problem when DATA_DIR exists but others can write it; a missing one is created private by its first user. */
export function privateDirectoryProblem(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) return `${dir} is not a directory`;
  if (stat.uid !== ownUid() && stat.uid !== 0) {
    return `${dir} belongs to another user (uid ${stat.uid}), who could replace its secrets; run: chown ${ownUid()} ${dir}`;
  }
  if ((stat.mode & WRITABLE_BY_OTHERS) !== 0) {
    return `${dir} is writable by other users (mode ${octal(stat.mode)}), who could replace its secrets; run: chmod go-w ${dir}`;
  }
  return undefined;
}

/** A secret file's problem (another owner, a link, writable by others), or undefined when it is safe to trust. */
export function secretFileProblem(file: string): string | undefined {
  const stat = lstatSync(file);
  if (!stat.isFile()) return `${file} is not a regular file; delete it and start again`;
  if (stat.uid !== ownUid()) {
    return `${file} belongs to another user (uid ${stat.uid}), who could have replaced it; run: chown ${ownUid()} ${file} && chmod 600 ${file}`;
  }
  if ((stat.mode & WRITABLE_BY_OTHERS) !== 0) {
    return `${file} is writable by other users (mode ${octal(stat.mode)}), who could have replaced it; run: chmod 600 ${file}`;
  }
  // Readable by others is a leak, not a swap: tighten it and go on.
  if ((stat.mode & READABLE_BY_OTHERS) !== 0) chmodSync(file, 0o600);
  return undefined;
}

/**
 * The secret kept in `file` (created with `bytes` random bytes, mode 0600, when missing), or a
 * problem saying why the existing one cannot be trusted.
 */
export function readOrCreateSecret(
  file: string,
  bytes = 48,
): { secret: string; created: boolean } | { problem: string } {
  if (existsSync(file)) {
    const problem = secretFileProblem(file);
    if (problem) return { problem };
    return { secret: readFileSync(file, 'utf8').trim(), created: false };
  }
  createPrivateDirectory(dirname(file));
  const secret = randomBytes(bytes).toString('base64url');
  // 'wx': never follow or overwrite something another process put there in the meantime.
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  return { secret, created: true };
}

/** DATA_DIR when missing: private, except that as root the database's OS user may pass through (x) to its subdirectory. */
export function createPrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: ownUid() === 0 ? 0o711 : 0o700 });
}
