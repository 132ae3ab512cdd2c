import { Global, Logger, Module, type DynamicModule, type OnApplicationShutdown, Inject } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { createDataSource, migrateAndVerify } from './data-source';
import { EmbeddedDatabase } from './embedded-postgres';

/** Starts the database (embedded unless DATABASE_URL is set), migrates it and checks the schema. */
export async function openDatabase(
  config: AppConfig,
): Promise<{ dataSource: DataSource; embedded?: EmbeddedDatabase }> {
  const logger = new Logger('Database');
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = new EmbeddedDatabase({ dataDir: config.dataDir });
    url = await embedded.start();
  }
  const dataSource = createDataSource(url, config.dbPoolSize);
  try {
    await dataSource.initialize();
    const applied = await migrateAndVerify(dataSource);
    if (applied.length > 0) logger.log(`Applied migrations: ${applied.join(', ')}`);
    return { dataSource, embedded };
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
    @Inject(EMBEDDED_DATABASE) private readonly embedded: EmbeddedDatabase | null,
  ) {}

  static forRoot(opened: { dataSource: DataSource; embedded?: EmbeddedDatabase }): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: DataSource, useValue: opened.dataSource },
        { provide: EMBEDDED_DATABASE, useValue: opened.embedded ?? null },
      ],
      exports: [DataSource],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
  }
}
