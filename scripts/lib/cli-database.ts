import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';

/**
 * What the operator CLIs (audit, admin) work on: --database-url, else DATABASE_URL, else the
 * embedded database in DATA_DIR (./.data), which only this process may then use.
 */
export async function withCliDatabase<T>(databaseUrl: string | undefined, work: (client: Client) => Promise<T>) {
  let url = databaseUrl ?? process.env.DATABASE_URL;
  let embedded: EmbeddedDatabase | undefined;
  if (!url) {
    Logger.overrideLogger(['error']);
    embedded = new EmbeddedDatabase({ dataDir: resolve(process.env.DATA_DIR ?? './.data') });
    url = await embedded.start();
  }
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
    await embedded?.stop();
  }
}
