import type { ClientBase } from 'pg';

/** What one completed transfer leaves on disk and in the WAL, measured black-box over many of them. */
export interface BytesPerTransfer {
  transfers: number;
  /** Growth of pg_total_relation_size (heap, TOAST, indexes) over the app's tables, per transfer. */
  tableBytes: number;
  walBytes: number;
  /** The same growth table by table (a partitioned table counts with its partitions). */
  byTable: Record<string, number>;
}

interface Snapshot {
  lsn: string;
  lastTransaction: number;
  sizes: Map<string, number>;
}

// Leaf tables (partitions too) of the public schema, each counted under its partition root.
const TABLE_SIZES = `
  SELECT coalesce(pg_partition_root(c.oid), c.oid)::regclass::text AS name,
         sum(pg_total_relation_size(c.oid))::float8 AS bytes
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind = 'r'
  GROUP BY 1`;

const LAST_TRANSACTION = `SELECT coalesce(max(id), 0)::float8 AS n FROM transactions`;
const TRANSACTIONS_AFTER = `SELECT count(*)::float8 AS n FROM transactions WHERE id > $1`;

/**
 * Runs `work` between two snapshots taken after a CHECKPOINT (as issue 41 measured it): the bytes
 * the app's tables and indexes grew by and the WAL written, each divided by the transactions the
 * work created. Everything the service does meanwhile counts (outbox relay, purges, autovacuum).
 */
export async function measureBytesPerTransfer(
  db: ClientBase,
  work: () => Promise<unknown>,
): Promise<BytesPerTransfer | undefined> {
  await db.query('CHECKPOINT');
  const before = await snapshot(db);
  await work();
  const after = await snapshot(db);
  const transfers = (await db.query<{ n: number }>(TRANSACTIONS_AFTER, [before.lastTransaction])).rows[0].n;
  if (transfers <= 0) return undefined;
  const walBytes = await walBytesBetween(db, before.lsn, after.lsn);
  const byTable: Record<string, number> = {};
  let total = 0;
  for (const [name, bytes] of after.sizes) {
    const grown = bytes - (before.sizes.get(name) ?? 0);
    total += grown;
    if (grown !== 0) byTable[name] = Math.round(grown / transfers);
  }
  const per = (bytes: number) => Math.round(bytes / transfers);
  return { transfers, tableBytes: per(total), walBytes: per(walBytes), byTable };
}

/** The WAL bytes written while `work` runs (pgbench's load, divided by its transactions by the caller). */
export async function walBytesDuring<T>(db: ClientBase, work: () => Promise<T>): Promise<{ result: T; wal: number }> {
  const before = await currentLsn(db);
  const result = await work();
  return { result, wal: await walBytesBetween(db, before, await currentLsn(db)) };
}

async function snapshot(db: ClientBase): Promise<Snapshot> {
  const lsn = await currentLsn(db);
  const { rows } = await db.query<{ name: string; bytes: number }>(TABLE_SIZES);
  const lastTransaction = (await db.query<{ n: number }>(LAST_TRANSACTION)).rows[0].n;
  return { lsn, lastTransaction, sizes: new Map(rows.map((row) => [row.name, row.bytes])) };
}

async function currentLsn(db: ClientBase): Promise<string> {
  return (await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
}

async function walBytesBetween(db: ClientBase, from: string, to: string): Promise<number> {
  const { rows } = await db.query<{ bytes: number }>('SELECT pg_wal_lsn_diff($2, $1)::float8 AS bytes', [from, to]);
  return rows[0].bytes;
}

/** One line of the bench's summary: the bytes per transfer beside pgbench's WAL per TPC-B transaction. */
export function describeBytes(bytes: BytesPerTransfer | undefined, pgbenchWal: number | undefined): string {
  if (!bytes) return 'n/a';
  const tables = Object.entries(bytes.byTable)
    .sort(([, a], [, b]) => b - a)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  const bound = pgbenchWal === undefined ? '' : ` (pgbench: ${pgbenchWal} per TPC-B transaction)`;
  return `${bytes.tableBytes} in tables and indexes (${tables}), ${bytes.walBytes} of WAL${bound}; over ${bytes.transfers} transfers`;
}
