import { NoWritablePrimaryError } from '../common/errors/postgres-errors';
import { ConfigError } from '../config/app-config';
import { hostLabel, parseDatabaseUrl } from '../config/database-url';

/** A start-up failure already phrased for the operator: the variable at fault and the cause, in one line. */
export class BootError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

/** Where a failing boot step points: used to name the variable when the cause is an OS or driver error. */
export interface BootContext {
  databaseUrl?: string;
  dataDir: string;
  port: number;
  host: string;
}

/** One line for the operator; stack traces only for what is none of the above (a bug). */
export function describeBootFailure(error: unknown, context: BootContext): string {
  if (error instanceof ConfigError || error instanceof BootError) return error.message;
  const cause = causeOf(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') return `PORT: ${context.port} is already in use on HOST ${context.host}`;
  if (code === 'EACCES' && (error as { syscall?: string }).syscall === 'listen') {
    return `PORT: not allowed to bind ${context.port} on HOST ${context.host} (${cause})`;
  }
  if (code === 'EADDRNOTAVAIL' || (code === 'ENOTFOUND' && (error as { syscall?: string }).syscall !== 'getaddrinfo')) {
    return `HOST: ${context.host} is not an address of this machine (${cause})`;
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** The database error turned into a line that names DATABASE_URL (never its password). */
export function databaseUrlFailure(error: unknown, url: string, variable = 'DATABASE_URL'): BootError {
  const target = safeTarget(url);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '28P01' || code === '28000') {
    return new BootError(variable, `the server at ${target} refused the credentials (${causeOf(error)})`);
  }
  if (code === '3D000') return new BootError(variable, `${causeOf(error)} on the server at ${target}`);
  if (code === '25006' || error instanceof NoWritablePrimaryError) {
    return new BootError(
      variable,
      `the server at ${target} takes no writes (${causeOf(error)}); point ${variable} at the primary`,
    );
  }
  return new BootError(variable, `cannot connect to the database server at ${target} (${causeOf(error)})`);
}

export function dataDirFailure(error: unknown, dataDir: string): BootError {
  if (error instanceof BootError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EEXIST' || code === 'ENOTDIR') return new BootError('DATA_DIR', `${dataDir} is not a directory`);
  return new BootError(
    'DATA_DIR',
    `cannot use ${dataDir} (${causeOf(error)}); it must be a directory writable by this user only ` +
      `(when started as root, the "postgres" OS user that embedded PostgreSQL runs as must be able to pass through it: chmod o+x)`,
  );
}

function causeOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return causeOf(error.errors[0]);
  const message = error instanceof Error ? error.message : String(error ?? 'unknown error');
  return message.split('\n')[0] || 'unknown error';
}

function safeTarget(url: string): string {
  try {
    const { hosts } = parseDatabaseUrl(url);
    const database = new URL(hosts[0].url).pathname;
    return `${hosts.map(hostLabel).join(',')}${database}`;
  } catch {
    return 'the configured address';
  }
}
