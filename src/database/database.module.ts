// Owns the connection: the one pg pool (PG_POOL), TypeORM on it for migrations and the schema check,
// the embedded PostgreSQL, sql_functions (the SQL functions applied by checksum) and schema_migrations.
import { AsyncResource } from 'node:async_hooks';
import { Global, Logger, Module, type DynamicModule, type OnApplicationShutdown, Inject } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { BootError, databaseUrlFailure, dataDirFailure } from '../boot/boot-failure';
import { DatabaseOutages } from '../common/errors/database-outages';
import { isDatabaseUnavailable, pgErrorCode } from '../common/errors/postgres-errors';
import { AppConfig } from '../config/app-config';
import { limitsStartupOption } from '../config/limits-settings';
import { checkServicePrivileges } from './database-privileges';
import { isPlannedShutdown } from '../common/logging';
import { createDataSource, migrateExclusively } from './data-source';
import { DatabaseAvailability } from './database-availability';
import { parseDatabaseUrl } from '../config/database-url';
import { DiskFullWindow } from './disk-full-window';
import { EmbeddedDatabase } from './embedded-postgres';
import { createPgPool, PG_POOL } from './pg-pool';
import { describeProbes, PrimaryLocator } from './primary-locator';
import { walIncomingDir } from './wal-archive';

export interface OpenedDatabase {
  dataSource: DataSource;
  pool: Pool;
  embedded?: EmbeddedDatabase;
  /** Recent "disk full" refusals seen by the pool: readiness follows them. */
  diskFull: DiskFullWindow;
  /** Whether a writable primary is there: readiness, the 503s and the workers' logs follow it. */
  availability: DatabaseAvailability;
  /** Where the primary is: for the one connection kept apart from the pool (the ledger audit). */
  locator: PrimaryLocator;
}

/** `serve` checks the service role's privileges; `migrate` (npm run migration:run) is the owner's job. */
export type OpenPurpose = 'serve' | 'migrate';

/**
 * Starts the database (embedded unless DATABASE_URL is set), finds its writable primary (one
 * host or several, database-url.ts), migrates it as the owner role (embedded: its own;
 * external: DATABASE_OWNER_URL, else DATABASE_URL) and checks the schema.
 */
export async function openDatabase(config: AppConfig, purpose: OpenPurpose = 'serve'): Promise<OpenedDatabase> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  let ownerUrl = config.databaseOwnerUrl ?? url;
  if (!url) {
    const database = new EmbeddedDatabase({
      dataDir: config.dataDir,
      restartWindowMs: config.databaseRestartWindowMs,
      walIncomingDir: config.backupDir && walIncomingDir(config.backupDir),
    });
    embedded = database;
    await database.start().catch((error: unknown) => {
      throw dataDirFailure(error, config.dataDir);
    });
    url = database.serviceUrl;
    ownerUrl = database.ownerUrl;
  }
  const variable = config.databaseUrl ? 'DATABASE_URL' : undefined;
  const locator = await locatePrimary(url, variable).catch(async (error: unknown) => {
    await embedded?.stop();
    throw error;
  });
  const diskFull = new DiskFullWindow();
  const availability = new DatabaseAvailability(locator);
  // One pool for serving, TypeORM included (data-source.ts). The money functions read the
  // limits from the session (src/config/limits-settings.ts), so every connection carries them.
  const pool = createPgPool(locator, config.dbPoolSize, {
    faults: diskFull,
    startupOptions: limitsStartupOption(config),
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    availability,
  });
  survivesConnectionLoss(pool, availability);
  const dataSource = createDataSource(locator.current.url, pool);
  try {
    await dataSource.initialize().catch((error: unknown) => {
      throw config.databaseUrl ? databaseUrlFailure(error, config.databaseUrl) : error;
    });
    const applied = await migrateAsOwner(url, ownerUrl ?? url, locator, config);
    if (applied.length > 0) new Logger('Database').log(`Applied migrations: ${applied.join(', ')}`);
    if (purpose === 'serve' && config.databaseUrl) {
      const logger = new Logger('Database');
      await checkServicePrivileges(dataSource, config.nodeEnv === 'production', config.databaseAllowPrivileged, logger);
    }
    return { dataSource, pool, embedded, diskFull, availability, locator };
  } catch (error) {
    availability.stop();
    await endPool(dataSource, pool);
    await embedded?.stop();
    // A primary lost in the middle of boot (demoted, or gone) is one line too, not a stack trace.
    if (config.databaseUrl && !(error instanceof BootError) && isDatabaseUnavailable(error)) {
      throw databaseUrlFailure(error, config.databaseUrl);
    }
    throw error;
  }
}

/**
 * The URL's first writable host, tried in order. A URL whose servers answer but none takes writes
 * (only standbys, or read-only ones) refuses the boot with one line: the migrations and the schema
 * check need the primary. Servers that do not answer at all are left to the first connection,
 * whose error says why (bad credentials, no such database, nothing listening).
 */
async function locatePrimary(url: string, variable: string | undefined): Promise<PrimaryLocator> {
  const locator = new PrimaryLocator(parseDatabaseUrl(url));
  const { primary, probes } = await locator.find();
  if (primary) locator.use(primary);
  else if (variable && probes.some((probe) => probe.reached)) {
    throw new BootError(
      variable,
      `no writable primary (${describeProbes(probes)}); the service writes, so ${variable} must name the ` +
        `primary, or every server of the cluster (postgres://user:password@host1,host2/database?target_session_attrs=read-write)`,
    );
  }
  return locator;
}

/**
 * Migrations as the owner, on a small pool of their own without the serving pool's statement
 * bound (a migration may rightly take minutes), on the same primary as the serving pool.
 */
async function migrateAsOwner(url: string, ownerUrl: string, serving: PrimaryLocator, config: AppConfig) {
  const variable = config.databaseOwnerUrl ? 'DATABASE_OWNER_URL' : config.databaseUrl ? 'DATABASE_URL' : undefined;
  const locator = ownerUrl === url ? serving : await locatePrimary(ownerUrl, variable);
  const owner = createDataSource(locator.current.url, createPgPool(locator, 1));
  try {
    await owner.initialize().catch((error: unknown) => {
      throw config.databaseOwnerUrl ? databaseUrlFailure(error, config.databaseOwnerUrl, 'DATABASE_OWNER_URL') : error;
    });
    return await migrateExclusively(owner, locator.current.url);
  } catch (error) {
    if (pgErrorCode(error) !== '42501' || !config.databaseUrl) throw error;
    throw new BootError(
      config.databaseOwnerUrl ? 'DATABASE_OWNER_URL' : 'DATABASE_URL',
      `the role may not apply the pending migrations (${(error as Error).message}); ` +
        'set DATABASE_OWNER_URL to the owner role (docs/database-roles.md)',
    );
  } finally {
    await endPool(owner, undefined);
  }
}

/** One "connection lost" line per burst: a server that goes drops every pooled connection at once. */
const LOST_CONNECTION_QUIET_MS = 10_000;

/**
 * A server that dies or shuts down sends an error to every connection. pg reports it as an
 * 'error' event: on the pool for idle connections, on the client for checked-out ones that are
 * between queries. Either one without a listener would crash the process; the request that
 * owns the connection still gets its own error (and a 503). Each loss is counted (and makes the
 * availability tracker look for the primary); the first of a burst is logged. The listener is
 * bound to the boot's context: a connection opened during a request would otherwise log under
 * that request's id.
 */
function survivesConnectionLoss(pool: Pool, availability: DatabaseAvailability): void {
  const logger = new Logger('Database');
  let loggedAt = 0;
  // Ctrl-C signals the embedded PostgreSQL too, and our signal may be read one event-loop turn
  // after its dropped connections: decide after the next turn's I/O, once the signal has been seen.
  const report = AsyncResource.bind((error: Error) =>
    setImmediate(() =>
      setImmediate(() => {
        const message = `Database connection lost: ${error.message}`;
        if (isPlannedShutdown()) return logger.debug(message);
        availability.absorbs('pool', error);
        if (Date.now() - loggedAt < LOST_CONNECTION_QUIET_MS) return logger.debug(message);
        loggedAt = Date.now();
        logger.warn(`${message} (more within ${LOST_CONNECTION_QUIET_MS / 1000} s are only counted)`);
      }),
    ),
  );
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', report));
}

/** The ORM ends the pool it runs on; one it never started on is ended here. Once, either way. */
async function endPool(dataSource: DataSource, pool: Pool | undefined): Promise<void> {
  if (dataSource.isInitialized) await dataSource.destroy();
  else if (pool && !pool.ended) await pool.end();
}

/** The pool, then the embedded server; each step bounded so a dead database cannot stall shutdown. */
export async function closeDatabase(opened: Omit<OpenedDatabase, 'diskFull' | 'locator'>): Promise<void> {
  const logger = new Logger('Database');
  opened.availability.stop();
  const step = async (name: string, work: () => Promise<unknown>, limitMs = 2000) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${limitMs} ms`)), limitMs);
    });
    try {
      await Promise.race([work(), timeout]);
    } catch (error) {
      logger.warn(`Closing ${name} failed: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  };
  await step('the connection pool', () => endPool(opened.dataSource, opened.pool));
  // Within the 9 s shutdown deadline: 2 + 4 s at worst, the embedded stop forcing itself at 3.5 s.
  await step('the embedded PostgreSQL', async () => opened.embedded?.stop(), 4000);
}

export const EMBEDDED_DATABASE = Symbol('EMBEDDED_DATABASE');
export const DISK_FULL_WINDOW = Symbol('DISK_FULL_WINDOW');

@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(EMBEDDED_DATABASE) private readonly embedded: EmbeddedDatabase | null,
    private readonly availability: DatabaseAvailability,
  ) {}

  static forRoot(opened: OpenedDatabase): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: DataSource, useValue: opened.dataSource },
        { provide: PG_POOL, useValue: opened.pool },
        { provide: EMBEDDED_DATABASE, useValue: opened.embedded ?? null },
        { provide: DISK_FULL_WINDOW, useValue: opened.diskFull },
        { provide: DatabaseAvailability, useValue: opened.availability },
        { provide: DatabaseOutages, useValue: opened.availability },
        { provide: PrimaryLocator, useValue: opened.locator },
      ],
      exports: [
        DataSource,
        PG_POOL,
        EMBEDDED_DATABASE,
        DISK_FULL_WINDOW,
        DatabaseAvailability,
        DatabaseOutages,
        PrimaryLocator,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await closeDatabase({
      dataSource: this.dataSource,
      pool: this.pool,
      embedded: this.embedded ?? undefined,
      availability: this.availability,
    });
  }
}
