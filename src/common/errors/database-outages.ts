/**
 * Where requests and background workers report a failure that may be the database's. The
 * implementation (src/database/database-availability.ts) counts it, and logs an outage once, so
 * the caller logs nothing when `absorbs` says true. A class, so that Nest can inject it by type.
 */
export abstract class DatabaseOutages {
  /** True when `error` means the database is unavailable (then counted for `component`); false: the caller's own error. */
  abstract absorbs(component: string, error: unknown): boolean;
}
