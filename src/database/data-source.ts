import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { type DiskFullWindow, faultObservingClient } from './disk-full-window';
import { ENTITIES } from './entities';
import { applySqlFunctions } from './sql-functions';

export function createDataSource(url: string, poolSize: number, faults?: DiskFullWindow): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    // Query errors surface as exceptions; logging them here would leak parameters into logs.
    logging: false,
    poolSize,
    extra: {
      max: poolSize,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
      ...(faults ? { Client: faultObservingClient(faults) } : {}),
    },
  });
}

export class SchemaMismatchError extends Error {}

/** Applies pending migrations, then refuses to go on if the schema still differs from the entities. */
export async function migrateAndVerify(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  await applySqlFunctions(dataSource);
  const pending = await dataSource.driver.createSchemaBuilder().log();
  if (pending.upQueries.length > 0) {
    const statements = pending.upQueries.map((q) => `  ${q.query}`).join('\n');
    throw new SchemaMismatchError(
      `The database schema does not match the entities; refusing to serve. ` +
        `Write a migration in migrations/ for these differences:\n${statements}`,
    );
  }
  return applied.map((m) => m.name);
}

/** One arbitrary, fixed key: every instance of this service takes the same lock before migrating. */
const MIGRATION_LOCK_KEY = 7_261_746_032;

/**
 * migrateAndVerify, one instance at a time: replicas started together on an empty database
 * queue on a PostgreSQL advisory lock (held by a dedicated session, so it is released even if
 * this process dies), and the later ones find the migrations already applied.
 */
export async function migrateExclusively(dataSource: DataSource, url: string): Promise<string[]> {
  const lock = new Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await migrateAndVerify(dataSource);
  } finally {
    await lock.end();
  }
}
