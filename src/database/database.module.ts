import { Global, Logger, Module, type DynamicModule, type OnApplicationShutdown, Inject } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { createDataSource, migrateAndVerify } from './data-source';
import { EmbeddedDatabase } from './embedded-postgres';
import { createPgPool, PG_POOL } from './pg-pool';

export interface OpenedDatabase {
  dataSource: DataSource;
  pool: Pool;
  embedded?: EmbeddedDatabase;
}

/** Starts the database (embedded unless DATABASE_URL is set), migrates it and checks the schema. */
export async function openDatabase(config: AppConfig): Promise<OpenedDatabase> {
  const logger = new Logger('Database');
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = new EmbeddedDatabase({ dataDir: config.dataDir });
    url = await embedded.start();
  }
  // The ORM serves the reads; the money movements go through PG_POOL, which gets the full size.
  const dataSource = createDataSource(url, Math.max(2, Math.ceil(config.dbPoolSize / 2)));
  try {
    await dataSource.initialize();
    const applied = await migrateAndVerify(dataSource);
    if (applied.length > 0) logger.log(`Applied migrations: ${applied.join(', ')}`);
    return { dataSource, pool: createPgPool(url, config.dbPoolSize), embedded };
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
    throw error;
  }
}

const EMBEDDED_DATABASE = Symbol('EMBEDDED_DATABASE');

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
      ],
      exports: [DataSource, PG_POOL],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
  }
}
