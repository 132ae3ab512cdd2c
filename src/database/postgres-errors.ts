import { QueryFailedError } from 'typeorm';

/** The PostgreSQL SQLSTATE codes the service reacts to, named once. */
export const PgErrorCode = {
  NumericValueOutOfRange: '22003',
  UniqueViolation: '23505',
  CheckViolation: '23514',
  LockNotAvailable: '55P03',
} as const;

/** The SQLSTATE of an error from pg directly or wrapped by TypeORM; undefined for anything else. */
export function pgErrorCode(error: unknown): string | undefined {
  const driverError = error instanceof QueryFailedError ? error.driverError : error;
  const code = (driverError as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
