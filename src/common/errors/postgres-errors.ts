import { QueryFailedError } from 'typeorm';

/** The PostgreSQL SQLSTATE codes the service reacts to, named once. */
export const PgErrorCode = {
  NumericValueOutOfRange: '22003',
  UniqueViolation: '23505',
  CheckViolation: '23514',
  LockNotAvailable: '55P03',
  SerializationFailure: '40001',
  DeadlockDetected: '40P01',
  DiskFull: '53100',
} as const;

/** The SQLSTATE of an error from pg directly or wrapped by TypeORM; undefined for anything else. */
export function pgErrorCode(error: unknown): string | undefined {
  const driverError = error instanceof QueryFailedError ? error.driverError : error;
  const code = (driverError as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * The pool's refusal of a server that takes no writes (a standby, or read-only by setting): no
 * primary is reachable right now (src/database/primary-locator.ts).
 */
export class NoWritablePrimaryError extends Error {}

/**
 * Server-side codes meaning "the database is not there right now": class 08 (connection
 * exception), admin/crash shutdown and "starting up" (57P01-57P03), a write refused by a
 * read-only server (25006: a standby, or a primary being demoted) and a statement cancelled at
 * DATABASE_QUERY_TIMEOUT_MS (57014). Class 53 (insufficient
 * resources: disk full 53100, out of memory 53200, too many connections 53300) is matched by
 * its prefix: the request was sound, the server lacks room for it now, so it is retryable too.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '25006', '57014']);
const UNAVAILABLE_CLASSES = ['08', '53'];

/** Socket-level failures from the driver, before or during a query. */
const UNAVAILABLE_SYSCALL_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * pg's own messages for a lost connection, for waiting too long on a full pool, for a server that
 * did not answer within query_timeout, and for a connection closed because its server was demoted.
 */
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection timeout/i,
  /query read timeout/i,
  /is not queryable/i,
  /cannot use a pool after calling end/i,
];

/**
 * True when an error means the database cannot be reached (lost, restarting, refusing
 * connections), as opposed to a fault in the query: such requests are retryable, 503.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof NoWritablePrimaryError) return true;
    const code = pgErrorCode(current);
    if (code && (UNAVAILABLE_CLASSES.includes(code.slice(0, 2)) || UNAVAILABLE_SQLSTATES.has(code))) return true;
    const candidate = current instanceof QueryFailedError ? current.driverError : current;
    const syscallCode = (candidate as { code?: unknown }).code;
    if (typeof syscallCode === 'string' && UNAVAILABLE_SYSCALL_CODES.has(syscallCode)) return true;
    const message = (candidate as { message?: unknown }).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
    // Several addresses refused at once (localhost as ::1 and 127.0.0.1) arrive aggregated. A `cause`
    // is not followed: fetch wraps its socket errors that way, and a provider is not the database.
    current = (candidate as { errors?: unknown[] }).errors?.[0];
  }
  return false;
}

/** True when PostgreSQL refused a write for lack of disk space (readiness follows these). */
export function isDiskFull(error: unknown): boolean {
  return pgErrorCode(error) === PgErrorCode.DiskFull;
}
