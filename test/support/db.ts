import { Client } from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { createDataSource, migrateAndVerify } from '../../src/database/data-source';

/** A direct connection to the test database, for what HTTP cannot show (locks, stored rows). */
export async function connectTestDatabase(): Promise<Client> {
  const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  return client;
}

export async function balanceOf(db: Client, upiId: string): Promise<string> {
  const result = await db.query('SELECT balance::text AS balance FROM users WHERE lower(upi_id) = lower($1)', [upiId]);
  return result.rows[0].balance;
}

export async function countTransactionsBetween(db: Client, a: string, b: string): Promise<number> {
  const result = await db.query(
    `SELECT count(*)::int AS n FROM transactions
     WHERE lower(sender_upi_id) IN (lower($1), lower($2)) AND lower(receiver_upi_id) IN (lower($1), lower($2))`,
    [a, b],
  );
  return result.rows[0].n;
}

export async function idempotencyRow(db: Client, owner: string, key: string) {
  const result = await db.query(
    'SELECT status, response_status FROM idempotency_keys WHERE owner_upi_id = lower($1) AND idempotency_key = $2',
    [owner, key],
  );
  return result.rows[0] as { status: string; response_status: number | null } | undefined;
}

export const testUrl = () => process.env.TEST_DATABASE_URL!;
const urlOf = (database: string) => testUrl().replace(/\/[^/?]+(\?.*)?$/, `/${database}`);

/** `work` on a connection of its own (of `ClientClass`, pg's Client unless given), closed afterwards. */
export async function withClient<T>(
  url: string,
  work: (client: Client) => Promise<T>,
  ClientClass: typeof Client = Client,
): Promise<T> {
  const client = new ClientClass({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A throwaway database on the test server, migrated like production, dropped afterwards. */
export async function withScratchDatabase(work: (url: string) => Promise<void>): Promise<void> {
  const scratch = await createScratchDatabase();
  try {
    await work(scratch.url);
  } finally {
    await scratch.drop();
  }
}

/** The same throwaway database for a whole test file (beforeAll / afterAll). */
export async function createScratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `scratch_${process.pid}_${Date.now()}`;
  const drop = () => withClient(testUrl(), (c) => c.query(`DROP DATABASE ${name} WITH (FORCE)`)).then(() => undefined);
  // A copy of the database the global setup migrated once, instead of running every migration again.
  await withClient(testUrl(), (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${SCRATCH_TEMPLATE}`));
  return { url: urlOf(name), drop };
}

/** The migrated database scratch databases are copied from: made by the global setup, never connected to. */
const SCRATCH_TEMPLATE = 'scratch_template';

/** Migrates a fresh SCRATCH_TEMPLATE on the test server as its superuser, as scratch databases were before. */
export async function createScratchTemplate(): Promise<void> {
  await withClient(testUrl(), async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${SCRATCH_TEMPLATE} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${SCRATCH_TEMPLATE}`);
  });
  const dataSource = createDataSource(urlOf(SCRATCH_TEMPLATE), 2);
  await dataSource.initialize();
  try {
    await migrateAndVerify(dataSource);
  } finally {
    await dataSource.destroy();
  }
  // Nobody may connect to it: CREATE DATABASE ... TEMPLATE refuses a template with sessions open.
  await withClient(testUrl(), (c) => c.query(`ALTER DATABASE ${SCRATCH_TEMPLATE} WITH ALLOW_CONNECTIONS false`));
}

/** A migration's timestamp, the 13 digits its name ends with. */
export const migrationTimestamp = (migration: new () => MigrationInterface) =>
  Number(/\d{13}$/.exec(new migration().name ?? '')![0]);

/**
 * Applies the migrations whose timestamp `upTo` accepts, as an older version of the service would
 * have; returns the names of those it ran.
 */
export async function migrateUpTo(url: string, upTo: (timestamp: number) => boolean): Promise<string[]> {
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS.filter((m) => upTo(migrationTimestamp(m))),
    migrationsTableName: 'schema_migrations',
    poolSize: 2,
  });
  await dataSource.initialize();
  try {
    return (await dataSource.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}

/** Every migration left, then the schema check, as the service starts: the names of those it applied. */
export async function migrateAllAndVerify(url: string): Promise<string[]> {
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    poolSize: 2,
  });
  await dataSource.initialize();
  try {
    return await migrateAndVerify(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * A new database as the service left it just before `migration` (the migrations before it
 * applied), handed to `work`, then dropped.
 */
export async function withDatabaseBefore(
  migration: new () => MigrationInterface,
  work: (url: string) => Promise<void>,
): Promise<void> {
  const name = `scratch_before_${migrationTimestamp(migration)}_${process.pid}_${Date.now()}`;
  const url = testUrl().replace(/\/[^/?]+(\?.*)?$/, `/${name}`);
  await withClient(testUrl(), (c) => c.query(`CREATE DATABASE ${name}`));
  try {
    await migrateUpTo(url, (timestamp) => timestamp < migrationTimestamp(migration));
    await work(url);
  } finally {
    await withClient(testUrl(), (c) => c.query(`DROP DATABASE ${name} WITH (FORCE)`));
  }
}
