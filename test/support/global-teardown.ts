import { rmSync } from 'node:fs';
import type { EmbeddedDatabase } from '../../src/database/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const database = (globalThis as { testDatabase?: EmbeddedDatabase }).testDatabase;
  if (!database) return;
  await database.stop();
  if (process.env.TEST_DATA_DIR) rmSync(process.env.TEST_DATA_DIR, { recursive: true, force: true });
}
