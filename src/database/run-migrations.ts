import { applyLogLevel } from '../common/logging';
import { loadConfig } from '../config/app-config';
import { closeDatabase, openDatabase } from './database.module';

/** `npm run migration:run`: apply pending migrations and verify the schema, then exit. */
async function runMigrations(): Promise<void> {
  const config = loadConfig();
  applyLogLevel(config.logLevel);
  await closeDatabase(await openDatabase(config, 'migrate'));
  console.log('Database schema is up to date');
}

runMigrations().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
