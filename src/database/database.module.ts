// Owns the connection: the one pg pool (PG_POOL), TypeORM on it for migrations and the schema check,
// the embedded PostgreSQL, sql_functions (the SQL functions applied by checksum) and schema_migrations.
import { AsyncResource } from 'node:async_hooks';
import { Global, Logger, Module, type DynamicModule, type OnApplicationShutdown, Inject } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { BootError, databaseUrlFailure, dataDirFailure } from '../boot/boot-failure';
import { pgErrorCode } from '../common/errors/postgres-errors';
import { AppConfig } from '../config/app-config';
import { limitsStartupOption } from '../config/limits-settings';
import { checkServicePrivileges } from './database-privileges';
import { isPlannedShutdown } from '../common/logging';
import { createDataSource, migrateExclusively } from './data-source';
import { DiskFullWindow } from './disk-full-window';
import { EmbeddedDatabase } from './embedded-postgres';
import { createPgPool, PG_POOL } from './pg-pool';
import { walIncomingDir } from './wal-archive';

export interface OpenedDatabase {
  dataSource: DataSource;
  pool: Pool;
  embedded?: EmbeddedDatabase;
  /** Recent "disk full" refusals seen by the pool: readiness follows them. */
  diskFull: DiskFullWindow;
}

/** `serve` checks the service role's privileges; `migrate` (npm run migration:run) is the owner's job. */
export type OpenPurpose = 'serve' | 'migrate';

/**
 * Starts the database (embedded unless DATABASE_URL is set), migrates it as the owner role
 * (embedded: its own; external: DATABASE_OWNER_URL, else DATABASE_URL) and checks the schema.
 */
export async function openDatabase(config: AppConfig, purpose: OpenPurpose = 'serve'): Promise<OpenedDatabase> {
  const logger = new Logger('Database');
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
  const diskFull = new DiskFullWindow();
  // One pool for everything, TypeORM included (data-source.ts). The money functions read the
  // limits from the session (src/config/limits-settings.ts), so every connection carries them.
  const pool = createPgPool(url, config.dbPoolSize, diskFull, limitsStartupOption(config));
  survivesConnectionLoss(pool, logger);
  const dataSource = createDataSource(url, pool);
  try {
    await dataSource.initialize().catch((error: unknown) => {
      throw config.databaseUrl ? databaseUrlFailure(error, config.databaseUrl) : error;
    });
    const applied = await migrateAsOwner(dataSource, url, ownerUrl ?? url, config);
    if (applied.length > 0) logger.log(`Applied migrations: ${applied.join(', ')}`);
    if (purpose === 'serve' && config.databaseUrl) {
      await checkServicePrivileges(dataSource, config.nodeEnv === 'production', config.databaseAllowPrivileged, logger);
    }
    return { dataSource, pool, embedded, diskFull };
  } catch (error) {
    await endPool(dataSource, pool);
    await embedded?.stop();
    throw error;
  }
}

/** Migrations with the owner's connection (a short-lived one when that is not the service's URL). */
async function migrateAsOwner(serving: DataSource, url: string, ownerUrl: string, config: AppConfig) {
  const owner = ownerUrl === url ? serving : createDataSource(ownerUrl, 1);
  try {
    if (owner !== serving) {
      await owner.initialize().catch((error: unknown) => {
        throw config.databaseOwnerUrl
          ? databaseUrlFailure(error, config.databaseOwnerUrl, 'DATABASE_OWNER_URL')
          : error;
      });
    }
    return await migrateExclusively(owner, ownerUrl);
  } catch (error) {
    if (pgErrorCode(error) !== '42501' || !config.databaseUrl) throw error;
    throw new BootError(
      config.databaseOwnerUrl ? 'DATABASE_OWNER_URL' : 'DATABASE_URL',
      `the role may not apply the pending migrations (${(error as Error).message}); ` +
        'set DATABASE_OWNER_URL to the owner role (docs/database-roles.md)',
    );
  } finally {
    if (owner !== serving && owner.isInitialized) await owner.destroy();
  }
}

/**
 * A server that dies or shuts down sends an error to every connection. pg reports it as an
 * 'error' event: on the pool for idle connections, on the client for checked-out ones that are
 * between queries. Either one without a listener would crash the process; the request that
 * owns the connection still gets its own error (and a 503). The listener is bound to the boot's
 * context: a connection opened during a request would otherwise log under that request's id.
 */
function survivesConnectionLoss(pool: Pool, logger: Logger): void {
  // Ctrl-C signals the embedded PostgreSQL too, and our signal may be read one event-loop turn
  // after its dropped connections: decide after the next turn's I/O, once the signal has been seen.
  const report = AsyncResource.bind((error: Error) =>
    setImmediate(() =>
      setImmediate(() => {
        const message = `Database connection lost: ${error.message}`;
        if (isPlannedShutdown()) logger.debug(message);
        else logger.warn(message);
      }),
    ),
  );
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', report));
}

/** The ORM ends the pool it runs on; one it never started on is ended here. Once, either way. */
async function endPool(dataSource: DataSource, pool: Pool): Promise<void> {
  if (dataSource.isInitialized) await dataSource.destroy();
  else if (!pool.ended) await pool.end();
}

/** The pool, then the embedded server; each step bounded so a dead database cannot stall shutdown. */
export async function closeDatabase(opened: Omit<OpenedDatabase, 'diskFull'>): Promise<void> {
  const logger = new Logger('Database');
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
  ) {}

  static forRoot(opened: OpenedDatabase): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: DataSource, useValue: opened.dataSource },
        { provide: PG_POOL, useValue: opened.pool },
        { provide: EMBEDDED_DATABASE, useValue: opened.embedded ?? null },
        { provide: DISK_FULL_WINDOW, useValue: opened.diskFull },
      ],
      exports: [DataSource, PG_POOL, EMBEDDED_DATABASE, DISK_FULL_WINDOW],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await closeDatabase({ dataSource: this.dataSource, pool: this.pool, embedded: this.embedded ?? undefined });
  }
}
