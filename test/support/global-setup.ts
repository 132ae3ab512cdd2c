import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { createDataSource, migrateAndVerify } from '../../src/database/data-source';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { createScratchTemplate } from './db';
import { makeTempDir, removeTempDir } from './temp-dir';

/**
 * One real PostgreSQL for the whole run: TEST_DATABASE_URL when given, otherwise an
 * embedded one in a temporary directory with fsync off (TEST_DATABASE_URL is then its superuser,
 * TEST_OWNER_DATABASE_URL the owner role, TEST_SERVICE_DATABASE_URL the service's role). Migrations
 * run once, here, as the owner role.
 */
export default async function globalSetup(): Promise<void> {
  buildService();
  await startTestDatabase();
}

/** The database half of the setup, alone for `npm run test:quick` (which runs no built service). */
export async function startTestDatabase(): Promise<void> {
  Logger.overrideLogger(['error']);
  let url = process.env.TEST_DATABASE_URL;
  let ownerUrl = url;
  if (!url) {
    const dataDir = makeTempDir('payments-test', { forPostgres: true });
    process.env.TEST_DATA_DIR = dataDir;
    // Tests try wrong passwords on purpose (test/process/boot.e2e-spec.ts): those FATALs are not the run's news.
    const database = new EmbeddedDatabase({ dataDir, fsync: false, failedLoginsExpected: true });
    try {
      url = await database.start();
    } catch (error) {
      removeTempDir(dataDir);
      throw error;
    }
    // The global teardown stops it and deletes dataDir.
    (globalThis as { testDatabase?: EmbeddedDatabase }).testDatabase = database;
    process.env.TEST_DATABASE_URL = url;
    // Tests administer the database as its superuser; the schema belongs to the owner role, as in production.
    ownerUrl = database.ownerUrl;
    process.env.TEST_OWNER_DATABASE_URL = database.ownerUrl;
    process.env.TEST_SERVICE_DATABASE_URL = database.serviceUrl;
  }
  const dataSource = createDataSource(ownerUrl ?? url, 2);
  await dataSource.initialize();
  try {
    await migrateAndVerify(dataSource);
  } finally {
    await dataSource.destroy();
  }
  await createScratchTemplate();
}

/** Tests that run the service as a child process need dist/ to match src/ (incremental, quick when it does). */
function buildService(): void {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: join(__dirname, '..', '..'),
    stdio: 'inherit',
  });
}
