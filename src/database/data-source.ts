import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ENTITIES } from './entities';
import { applySqlFunctions } from './sql-functions';

export function createDataSource(url: string, poolSize: number): DataSource {
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
    extra: { max: poolSize, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 },
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
