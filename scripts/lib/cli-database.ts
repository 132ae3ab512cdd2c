import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { parseDatabaseUrl } from '../../src/config/database-url';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { embeddedPasswords, embeddedUrl, OWNER_ROLE, SUPERUSER } from '../../src/database/embedded-roles';
import { runningPostmasterPort } from '../../src/database/postmaster-process';
import { PrimaryLocator } from '../../src/database/primary-locator';

/** The options of every operator CLI that works on the database, for parseArgs. */
export const DATABASE_OPTIONS = {
  'database-url': { type: 'string' },
  'database-url-file': { type: 'string' },
} as const;

export const DATABASE_USAGE = `The database, first found of:
  --database-url-file <path>  a file holding the URL (keep it private: chmod 600)
  --database-url <url>        a URL without a password (the password from PGPASSWORD or ~/.pgpass)
  DATABASE_URL                the environment variable
  the embedded PostgreSQL of DATA_DIR (./.data): the running service's, or started for this command`;

export interface DatabaseSource {
  'database-url'?: string;
  'database-url-file'?: string;
}

/** Bad usage (exit 2): said in one line, nothing done. */
export class CliUsageError extends Error {}

/**
 * What the operator CLIs (audit, admin, archive) work on: the URL of DATABASE_OPTIONS, else
 * DATABASE_URL, else the embedded database in DATA_DIR. A running service's postmaster is shared
 * (found from its postmaster.pid, with the passwords DATA_DIR keeps); with none running, one is
 * started and stopped. `owner`: a tool that changes the schema (the archive drops and makes
 * partitions) works as the owner role: DATABASE_OWNER_URL before DATABASE_URL, and the embedded
 * database's owner rather than its superuser.
 */
export async function withCliDatabase<T>(
  source: DatabaseSource,
  work: (client: Client) => Promise<T>,
  role: 'superuser' | 'owner' = 'superuser',
) {
  const environment = (role === 'owner' && process.env.DATABASE_OWNER_URL) || process.env.DATABASE_URL;
  const url = givenUrl(source) ?? (environment || undefined);
  if (url) return withClient(url, work);
  const dataDir = resolve(process.env.DATA_DIR ?? './.data');
  const passwords = embeddedPasswords(dataDir);
  const login = (port: number) =>
    role === 'owner'
      ? embeddedUrl(OWNER_ROLE, passwords.owner, port)
      : embeddedUrl(SUPERUSER, passwords.superuser, port);
  const port = runningPostmasterPort(join(dataDir, 'postgres'));
  if (port) return withClient(login(port), work);
  Logger.overrideLogger(['error']);
  const embedded = new EmbeddedDatabase({ dataDir });
  try {
    const superuserUrl = await embedded.start();
    return await withClient(role === 'owner' ? login(Number(new URL(superuserUrl).port)) : superuserUrl, work);
  } finally {
    await embedded.stop();
  }
}

function givenUrl(source: DatabaseSource): string | undefined {
  const { 'database-url': url, 'database-url-file': file } = source;
  if (url !== undefined && file !== undefined) {
    throw new CliUsageError('Give --database-url or --database-url-file, not both');
  }
  if (url !== undefined && carriesPassword(url)) {
    throw new CliUsageError(
      '--database-url must not carry a password: any user of this machine can read a command line (ps). ' +
        'Set DATABASE_URL, or put the URL in a private file and pass --database-url-file <path>',
    );
  }
  return url ?? (file === undefined ? undefined : readUrlFile(file));
}

/** A URL's user:password@, or a password= parameter in either connection-string form. */
function carriesPassword(url: string): boolean {
  if (/(^|[\s?&])password\s*=/i.test(url)) return true;
  // user:password@ before the host list; new URL() would refuse libpq's several hosts.
  return /^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(url);
}

function readUrlFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new CliUsageError(`--database-url-file ${path} cannot be read: ${(error as Error).message}`);
  }
  if (!text) throw new CliUsageError(`--database-url-file ${path} is empty`);
  return text;
}

/** Several hosts (libpq's form): the writable one as a one-host URL, else the first host's. */
export async function primaryUrl(url: string): Promise<string> {
  const locator = new PrimaryLocator(parseDatabaseUrl(url));
  const { primary } = await locator.find();
  return (primary ?? locator.current).url;
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: await primaryUrl(url) });
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
