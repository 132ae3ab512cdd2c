import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { findRepoRoot } from '../../src/common/repo-root';
import { BARMAN_SERVER } from '../../src/database/wal-archive';

const REPO_ROOT = findRepoRoot(__dirname);
const TOOLS_DIR = join(REPO_ROOT, '.tools', 'backup');
const BARMAN = join(TOOLS_DIR, 'venv', 'bin', 'barman');
const POSTGRES_TOOLS = join(TOOLS_DIR, 'pgsql', 'bin');
const run = promisify(execFile);

/** What the embedded database's DATA_DIR needs besides its cluster: the roles' passwords and the JWT secret. */
export const EMBEDDED_SECRETS = ['database-password', 'jwt-secret'];

/** A failure the operator can act on: the scripts print its message as one line and exit 1. */
export class BackupFailure extends Error {}

/** How Barman reaches the database: a libpq connection string without its password, which goes by environment. */
export interface BarmanConnection {
  conninfo: string;
  password: string | undefined;
}

export interface BarmanBackup {
  id: string;
  endTime: Date;
}

export function requiredBackupDir(): string {
  const value = process.env.BACKUP_DIR?.trim();
  if (!value) throw new BackupFailure('BACKUP_DIR is not set: set it to where backups and archived WAL are kept');
  return resolve(value);
}

/** Ends the process with the failure's one line (exit 1); the embedded database's exit hook would otherwise exit 0. */
export function exitWithFailure(command: string) {
  return (error: unknown): never => {
    console.error(`${command} failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  };
}

/** scripts/backup/install-tools: quick when Barman and the PostgreSQL 18 tools are already under .tools/backup. */
export function installBackupTools(): void {
  const result = spawnSync(join(REPO_ROOT, 'scripts', 'backup', 'install-tools'), {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    throw new BackupFailure('the backup tools are not installed (scripts/backup/install-tools failed, see above)');
  }
}

/**
 * A postgres:// URL (several hosts too) as a libpq key=value string, which is all Barman takes,
 * with the password taken out: it goes to Barman's tools by environment, never into a file.
 */
export function connectionFromUrl(url: string): BarmanConnection {
  const match = /^postgres(?:ql)?:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?]*)(?:\/([^?]*))?(?:\?(.*))?$/.exec(url);
  if (!match) throw new BackupFailure('the database URL is not a postgres:// URL');
  const [, user, password, hostList, database, query] = match;
  const hosts = hostList
    .split(',')
    .filter(Boolean)
    .map((host) => {
      const [, name = host, port = '5432'] = /^(\[[^\]]+\]|[^:]*)(?::(\d+))?$/.exec(host) ?? [];
      return { name: name.replace(/^\[|\]$/g, ''), port };
    });
  const settings: [string, string][] = [];
  if (hosts.length > 0) {
    settings.push(['host', hosts.map((host) => host.name).join(',')]);
    settings.push(['port', hosts.map((host) => host.port).join(',')]);
  }
  if (user) settings.push(['user', decodeURIComponent(user)]);
  if (database) settings.push(['dbname', decodeURIComponent(database)]);
  settings.push(...new URLSearchParams(query ?? ''));
  const quote = (value: string) => `'${value.replace(/[\\']/g, (character) => `\\${character}`)}'`;
  return {
    conninfo: settings.map(([key, value]) => `${key}=${quote(value)}`).join(' '),
    password: password === undefined ? undefined : decodeURIComponent(password),
  };
}

/**
 * Barman with a configuration generated under BACKUP_DIR (its home) at every run, so that it
 * follows the database wherever it now listens: one server, `payments`, backed up with
 * pg_basebackup (backup_method = postgres) and fed its WAL by PostgreSQL's archive_command.
 */
export class Barman {
  readonly configFile: string;

  constructor(
    readonly backupDir: string,
    private readonly connection: BarmanConnection,
  ) {
    this.configFile = join(backupDir, 'barman.conf');
  }

  get serverDir(): string {
    return join(this.backupDir, BARMAN_SERVER);
  }

  writeConfig(): void {
    mkdirSync(this.backupDir, { recursive: true, mode: 0o711 });
    const libpq = (text: string) => text.replaceAll('%', '%%');
    writeFileSync(
      this.configFile,
      [
        '; Written by npm run backup / npm run restore at every run: edits here do not last.',
        '[barman]',
        `barman_home = ${this.backupDir}`,
        `barman_user = ${userInfo().username}`,
        `log_file = ${join(this.backupDir, 'barman.log')}`,
        'log_level = INFO',
        'compression = gzip',
        '',
        `[${BARMAN_SERVER}]`,
        'description = The payment service database',
        `conninfo = ${libpq(this.connection.conninfo)}`,
        `streaming_conninfo = ${libpq(this.connection.conninfo)}`,
        'backup_method = postgres',
        'archiver = on',
        // The base backup starts at once instead of waiting for the next scheduled checkpoint.
        'immediate_checkpoint = true',
        `path_prefix = ${POSTGRES_TOOLS}`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
  }

  /** Runs one Barman command; resolves its output, or rejects with Barman's own error line. */
  async run(args: string[]): Promise<string> {
    try {
      const { stdout, stderr } = await run(BARMAN, ['-c', this.configFile, ...args], {
        env: { ...process.env, PGPASSWORD: this.connection.password ?? process.env.PGPASSWORD },
        maxBuffer: 16 * 1024 * 1024,
      });
      return stdout + stderr;
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      const output = `${stdout}${stderr}`;
      throw new BackupFailure(`barman ${args[0]} failed: ${barmanProblem(output)}`, { cause: output });
    }
  }

  /** Finished base backups, oldest first. */
  async backups(): Promise<BarmanBackup[]> {
    if (!existsSync(join(this.serverDir, 'base'))) return [];
    const listing = JSON.parse(await this.run(['-f', 'json', 'list-backups', BARMAN_SERVER])) as Record<
      string,
      { backup_id: string; status: string; end_time_timestamp: string }[]
    >;
    return (listing[BARMAN_SERVER] ?? [])
      .filter((backup) => backup.status === 'DONE')
      .map((backup) => ({ id: backup.backup_id, endTime: new Date(Number(backup.end_time_timestamp) * 1000) }))
      .sort((a, b) => a.endTime.getTime() - b.endTime.getTime());
  }

  /** Keeps the embedded database's secrets beside its backups: a restore has no other copy once DATA_DIR is lost. */
  keepSecrets(dataDir: string): void {
    const dir = this.secretsDir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    for (const name of EMBEDDED_SECRETS) {
      const source = join(dataDir, name);
      if (existsSync(source)) writeFileSync(join(dir, name), readFileSync(source), { mode: 0o600 });
    }
  }

  /** False when this BACKUP_DIR holds an external database's backups, which have none. */
  get hasEmbeddedSecrets(): boolean {
    return existsSync(join(this.secretsDir, 'database-password'));
  }

  /** Copies the kept secrets into a new DATA_DIR. */
  restoreSecrets(dataDir: string): void {
    for (const name of EMBEDDED_SECRETS) {
      const kept = join(this.secretsDir, name);
      if (existsSync(kept)) copyFileSync(kept, join(dataDir, name));
    }
  }

  private get secretsDir(): string {
    return join(this.backupDir, 'embedded-secrets');
  }
}

/** Barman's ERROR lines (or FAILED checks), else its last line: what went wrong, in one line. */
function barmanProblem(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const errors = lines.filter((line) => /^ERROR\b|: FAILED\b/.test(line)).map((line) => line.replace(/^ERROR:\s*/, ''));
  return (errors.length > 0 ? errors.join('; ') : lines.at(-1)) ?? 'no output';
}
