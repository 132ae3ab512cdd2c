import * as pg from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import { MIGRATIONS } from '../../migrations';
import { parseDatabaseUrl } from '../config/database-url';
import { createPgPool } from './pg-pool';
import { schemaDrift } from './schema-drift';
import { applySqlFunctions } from './sql-functions';

const ORM_OPTIONS = {
  type: 'postgres',
  migrations: MIGRATIONS,
  migrationsTableName: 'schema_migrations',
  synchronize: false,
  migrationsRun: false,
  // Query errors surface as exceptions; logging them here would leak parameters into logs.
  logging: false,
} satisfies PostgresDataSourceOptions;

/**
 * The ORM for migrations and the schema check. TypeORM makes no pool itself: its
 * `driver` option takes the pg module, whose Pool here answers with a pool from createPgPool, so
 * every connection is made one way, with the same hooks (disk-full observation, the limits
 * startup option, the connection-loss listeners). Given the service's pool, one DB_POOL_SIZE
 * bounds every connection; given a size, a small pool of its own (a short-lived owner
 * connection, the tests' setup).
 */
export function createDataSource(url: string, pool: pg.Pool | number): DataSource {
  return new DataSource({
    ...ORM_OPTIONS,
    // TypeORM reads one host only; the pool decides where connections go, this only names the database.
    url: parseDatabaseUrl(url).hosts[0].url,
    driver: { Pool: sharedPool(typeof pool === 'number' ? createPgPool(url, pool) : pool), defaults: pg.defaults },
    // An idle connection's error is the pool's to report (the service's: survivesConnectionLoss in
    // database.module.ts); TypeORM's own handler would only log it, and its logging is off.
    poolErrorHandler: () => undefined,
  });
}

/** A constructor that answers `new Pool(options)` with the given pool; TypeORM ends it on destroy(). */
function sharedPool(pool: pg.Pool) {
  return function SharedPool() {
    return pool;
  };
}

export class SchemaMismatchError extends Error {}

/** Applies pending migrations, then refuses to go on if the schema differs from what the migrations build. */
export async function migrateAndVerify(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  await applySqlFunctions(dataSource);
  const drift = await schemaDrift(dataSource);
  if (drift && drift.length > 0) {
    throw new SchemaMismatchError(
      `The database schema does not match what the migrations build; refusing to serve. ` +
        `Undo these changes (+ only in the database, - only in the migrations) or write a migration in migrations/ for them:\n` +
        drift.map((line) => `  ${line}`).join('\n'),
    );
  }
  return applied.map((m) => m.name);
}

/** One arbitrary, fixed key: every instance of this service takes the same lock before migrating. */
const MIGRATION_LOCK_KEY = 7_261_746_032;

/**
 * migrateAndVerify, one instance at a time: replicas started together on an empty database
 * queue on a PostgreSQL advisory lock (held by a dedicated session, so it is released even if
 * this process dies), and the later ones find the migrations already applied. `primaryUrl` names
 * one host: the primary the data source's pool found.
 */
export async function migrateExclusively(dataSource: DataSource, primaryUrl: string): Promise<string[]> {
  const lock = new pg.Client({ connectionString: primaryUrl });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await migrateAndVerify(dataSource);
  } finally {
    await lock.end();
  }
}
