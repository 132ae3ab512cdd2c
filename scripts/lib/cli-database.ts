import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { parseDatabaseUrl } from '../../src/config/database-url';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { PrimaryLocator } from '../../src/database/primary-locator';

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
  // Several hosts (libpq's form): the writable one, else the first to say why it failed.
  const locator = new PrimaryLocator(parseDatabaseUrl(url));
  const { primary } = await locator.find();
  const client = new Client({ connectionString: (primary ?? locator.current).url });
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
    await embedded?.stop();
  }
}
