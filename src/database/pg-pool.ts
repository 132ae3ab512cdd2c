import { Pool } from 'pg';
import { type DiskFullWindow, faultObservingClient } from './disk-full-window';

/**
 * Injection token for the service's own pg pool: the hot paths (one function call per money
 * movement; the history reads' first pages, one statement each) and the samplers use it
 * directly; TypeORM keeps its own pool for the other reads and the writes outside movements.
 */
export const PG_POOL = Symbol('PG_POOL');

export function createPgPool(url: string, size: number, faults?: DiskFullWindow, options?: string): Pool {
  return new Pool({
    connectionString: url,
    ...(options ? { options } : {}),
    max: size,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    ...(faults ? { Client: faultObservingClient(faults) } : {}),
  });
}
