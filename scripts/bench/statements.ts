import type { ClientBase } from 'pg';
import type { EmbeddedDatabase } from '../../src/database/embedded-postgres';

export interface StatementCounts {
  /** How the numbers were obtained, printed with them. */
  method: string;
  /** Statements the clients sent (round trips), per operation. */
  topLevelPerOp?: number;
  /** Including the statements run inside functions such as transfer_funds. */
  allPerOp?: number;
  transactionsPerOp: number;
  rowWritesPerOp: number;
  /** The statements that ran most, per operation, for finding where the time goes. */
  top?: { query: string; callsPerOp: number; meanMs: number; shareOfTime: number }[];
}

/**
 * pg_stat_statements needs shared_preload_libraries, which only a restart applies: on the
 * embedded server the bench sets it with ALTER SYSTEM and restarts it (same port) before the
 * service connects. Returns false where the library cannot be loaded.
 */
export async function enablePgStatStatements(
  db: () => Promise<ClientBase & { end(): Promise<void> }>,
  embedded?: EmbeddedDatabase,
) {
  let client = await db();
  try {
    const available = await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'pg_stat_statements'`);
    if (available.rowCount === 0) return false;
    const preload = (await client.query('SHOW shared_preload_libraries')).rows[0].shared_preload_libraries as string;
    if (!preload.includes('pg_stat_statements')) {
      if (!embedded) return false;
      await client.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
      await client.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
      await client.end();
      await embedded.stop();
      await embedded.start();
      client = await db();
    }
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface Snapshot {
  transactions: number;
  rowWrites: number;
}

/** Counts statements over one phase: reset at the start, read per operation at the end. */
export class StatementCounter {
  private before: Snapshot = { transactions: 0, rowWrites: 0 };

  constructor(
    private readonly db: ClientBase,
    private readonly withPgStatStatements: boolean,
  ) {}

  async start(): Promise<void> {
    if (this.withPgStatStatements) await this.db.query('SELECT pg_stat_statements_reset()');
    this.before = await this.snapshot();
  }

  async read(operations: number): Promise<StatementCounts> {
    const after = await this.snapshot();
    const per = (value: number) => Math.round((value / Math.max(1, operations)) * 100) / 100;
    const counts: StatementCounts = {
      method:
        'pg_stat_database.xact_commit and pg_stat_user_tables row writes (these two are flushed by backends about once a second)',
      transactionsPerOp: per(after.transactions - this.before.transactions),
      rowWritesPerOp: per(after.rowWrites - this.before.rowWrites),
    };
    if (!this.withPgStatStatements) {
      counts.method = `pg_stat_statements unavailable; statements not counted. ${counts.method}`;
      return counts;
    }
    const rows = (
      await this.db.query(`
        SELECT query, toplevel, calls::float8 AS calls, total_exec_time AS total_ms
        FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND query NOT ILIKE '%pg_stat_%'`)
    ).rows as { query: string; toplevel: boolean; calls: number; total_ms: number }[];
    const totalMs = rows.reduce((sum, row) => sum + row.total_ms, 0) || 1;
    counts.method = `pg_stat_statements (track = all). ${counts.method}`;
    counts.topLevelPerOp = per(rows.filter((row) => row.toplevel).reduce((sum, row) => sum + row.calls, 0));
    counts.allPerOp = per(rows.reduce((sum, row) => sum + row.calls, 0));
    counts.top = rows
      .sort((a, b) => b.total_ms - a.total_ms)
      .slice(0, 12)
      .map((row) => ({
        query: row.query.replace(/\s+/g, ' ').slice(0, 160),
        callsPerOp: per(row.calls),
        meanMs: Math.round((row.total_ms / Math.max(1, row.calls)) * 1000) / 1000,
        shareOfTime: Math.round((row.total_ms / totalMs) * 1000) / 1000,
      }));
    return counts;
  }

  private async snapshot(): Promise<Snapshot> {
    const row = (
      await this.db.query(`
        SELECT (SELECT xact_commit::float8 FROM pg_stat_database WHERE datname = current_database()) AS transactions,
               (SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::float8 FROM pg_stat_user_tables) AS row_writes`)
    ).rows[0];
    return { transactions: row.transactions, rowWrites: row.row_writes };
  }
}
