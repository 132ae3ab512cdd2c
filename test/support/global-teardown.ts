import { rmSync } from 'node:fs';
import type { EmbeddedDatabase } from '../../src/database/embedded-postgres';

/** Stops the run's embedded PostgreSQL and deletes its directory, even when stopping fails. */
export default async function globalTeardown(): Promise<void> {
  const database = (globalThis as { testDatabase?: EmbeddedDatabase }).testDatabase;
  if (!database) return;
  try {
    await database.stop();
  } finally {
    if (process.env.TEST_DATA_DIR) rmSync(process.env.TEST_DATA_DIR, { recursive: true, force: true });
  }
}
