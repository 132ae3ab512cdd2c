import { type Client, type ClientConfig, Pool } from 'pg';
import { QueryFailureClient } from './query-failure-client';
import type { DatabaseAvailability } from './database-availability';
import { parseDatabaseUrl } from '../config/database-url';
import type { DiskFullWindow } from './disk-full-window';
import { pgErrorCode } from '../common/errors/postgres-errors';
import { PrimaryLocator, requireWritable } from './primary-locator';

/**
 * Injection token for the service's one pg pool. Everything runs on it: the money movements
 * (one function call each), the repositories' reads and writes, the samplers, and TypeORM
 * itself (the schema check), which is handed this pool (data-source.ts).
 */
export const PG_POOL = Symbol('PG_POOL');

/**
 * A server that stops answering altogether (hung, or cut off) cannot enforce statement_timeout:
 * the client gives up this long after the server should have.
 */
export const CLIENT_TIMEOUT_GRACE_MS = 1000;

export interface PoolHooks {
  /** Sees every query's error (readiness follows disk-full refusals). */
  faults?: DiskFullWindow;
  /** PostgreSQL startup options for every connection (`-c name=value ...`). */
  startupOptions?: string;
  /** Each statement's bound (statement_timeout); unset: none (migrations, the operator scripts). */
  queryTimeoutMs?: number;
  /** Told when a connection finds no primary, so that it looks for one. */
  availability?: DatabaseAvailability;
}

/**
 * A pool whose connections go only to a writable server: each new one to the locator's current
 * primary, checked on connect (a standby or a read-only server is refused, 503). A connection
 * whose server turned read-only, or that stopped answering, is closed rather than reused.
 */
export function createPgPool(target: string | PrimaryLocator, size: number, hooks: PoolHooks = {}): Pool {
  const locator = typeof target === 'string' ? new PrimaryLocator(parseDatabaseUrl(target)) : target;
  const { queryTimeoutMs } = hooks;
  const startupOptions = [hooks.startupOptions, queryTimeoutMs ? `-c statement_timeout=${queryTimeoutMs}` : undefined]
    .filter(Boolean)
    .join(' ');
  return new Pool({
    ...(startupOptions ? { options: startupOptions } : {}),
    ...(queryTimeoutMs ? { query_timeout: queryTimeoutMs + CLIENT_TIMEOUT_GRACE_MS } : {}),
    max: size,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    Client: primaryClient(locator, hooks),
    onConnect: async (client) => {
      try {
        await requireWritable(client, locator.hostOf(client));
      } catch (error) {
        hooks.availability?.suspect();
        throw error;
      }
      locator.track(client as Client);
    },
  });
}

function primaryClient(locator: PrimaryLocator, hooks: PoolHooks) {
  return class PrimaryClient extends QueryFailureClient {
    constructor(config: ClientConfig = {}) {
      const host = locator.current;
      super({ ...config, connectionString: host.url });
      locator.assign(this, host);
    }

    protected override queryFailed(error: Error): void {
      hooks.faults?.note(error);
      if (!leavesConnectionUseless(error)) return;
      // The caller still gets its error (503); the pool drops the client when it is released.
      void this.end().catch(() => undefined);
      hooks.availability?.suspect();
    }
  };
}

/** A read-only answer (the server was demoted) or none at all (query_timeout: the query may still be queued there). */
function leavesConnectionUseless(error: Error): boolean {
  return pgErrorCode(error) === '25006' || /query read timeout/i.test(error.message);
}
