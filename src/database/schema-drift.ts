import type { DataSource, QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../../migrations';

/** Where the migrations are replayed; created and dropped with the transaction that rolls back. */
const SCRATCH_SCHEMA = 'schema_check_scratch';

/** Kept by TypeORM, not by a migration. */
const MIGRATIONS_TABLE = 'schema_migrations';

/**
 * The tables, columns, constraints and indexes of one schema, one line each, with the schema's
 * own name taken out so that two schemas built alike read alike. Partitions are left out: the
 * partitions job makes them at run time (src/partitions), and each has its parent's columns,
 * constraints and indexes, which are compared. Functions are not compared:
 * the service replaces them from src/<module>/sql on every start (sql-functions.ts).
 */
const DESCRIBE_SCHEMA = `
  WITH rel AS (
    SELECT c.oid, c.relname, c.relkind, c.relpersistence FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND c.relname <> $2 AND NOT c.relispartition)
  SELECT 'table ' || relname || ' (' || relkind::text || relpersistence::text || ')' AS line FROM rel
  UNION ALL
  SELECT 'column ' || r.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
         || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
         || CASE a.attidentity WHEN '' THEN '' ELSE ' identity ' || a.attidentity::text END
         || CASE a.attgenerated WHEN '' THEN '' ELSE ' generated ' || a.attgenerated::text END
  FROM rel r JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef d ON d.adrelid = r.oid AND d.adnum = a.attnum
  UNION ALL
  SELECT 'constraint ' || r.relname || '.' || k.conname || ' ' || pg_get_constraintdef(k.oid)
  FROM rel r JOIN pg_constraint k ON k.conrelid = r.oid
  UNION ALL
  SELECT 'index ' || r.relname || '.' || i.relname || ' ' || pg_get_indexdef(i.oid)
  FROM rel r JOIN pg_index x ON x.indrelid = r.oid JOIN pg_class i ON i.oid = x.indexrelid`;

/**
 * How the database's schema differs from the one the migrations alone build: they are replayed
 * in a scratch schema inside a transaction that is then rolled back, so nothing of it stays.
 * Each difference reads "+ <line>" (only in the database) or "- <line>" (only in the migrations).
 * Undefined when the role may not create a schema: the service role, started on a database the
 * owner migrated beforehand with `npm run migration:run`, whose run made this check itself.
 */
export async function schemaDrift(dataSource: DataSource): Promise<string[] | undefined> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    if (!(await mayCreateSchema(runner))) return undefined;
    await runner.startTransaction();
    try {
      const [{ schema }] = (await runner.query('SELECT current_schema() AS schema')) as { schema: string }[];
      const live = await describeSchema(runner, schema);
      const built = await buildFromMigrations(runner);
      return [...minus(live, built).map((line) => `+ ${line}`), ...minus(built, live).map((line) => `- ${line}`)];
    } finally {
      await runner.rollbackTransaction();
    }
  } finally {
    await runner.release();
  }
}

async function mayCreateSchema(runner: QueryRunner): Promise<boolean> {
  const [{ allowed }] = (await runner.query(
    `SELECT has_database_privilege(current_database(), 'CREATE') AS allowed`,
  )) as { allowed: boolean }[];
  return allowed;
}

async function buildFromMigrations(runner: QueryRunner): Promise<string[]> {
  await runner.query(`CREATE SCHEMA ${SCRATCH_SCHEMA}`);
  await runner.query(`SET LOCAL search_path TO ${SCRATCH_SCHEMA}`);
  for (const Migration of MIGRATIONS) await new Migration().up(runner);
  return describeSchema(runner, SCRATCH_SCHEMA);
}

async function describeSchema(runner: QueryRunner, schema: string): Promise<string[]> {
  const rows = (await runner.query(DESCRIBE_SCHEMA, [schema, MIGRATIONS_TABLE])) as { line: string }[];
  return rows.map((row) => row.line.replaceAll(`${schema}.`, '')).sort();
}

function minus(lines: string[], others: string[]): string[] {
  const present = new Set(others);
  return lines.filter((line) => !present.has(line));
}
