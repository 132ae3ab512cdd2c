import { Pool } from 'pg';
import { CallbackQueryClient } from './callback-query-client';
import { type DiskFullWindow, faultObservingClient } from './disk-full-window';

/**
 * Injection token for the service's one pg pool. Everything runs on it: the money movements
 * (one function call each), the repositories' reads and writes, the samplers, and TypeORM
 * itself (migrations, the schema check), which is handed this pool (data-source.ts).
 */
export const PG_POOL = Symbol('PG_POOL');

export function createPgPool(url: string, size: number, faults?: DiskFullWindow, options?: string): Pool {
  return new Pool({
    connectionString: url,
    ...(options ? { options } : {}),
    max: size,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    Client: faults ? faultObservingClient(faults) : CallbackQueryClient,
  });
}
