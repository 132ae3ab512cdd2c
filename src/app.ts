import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { applyLogLevel } from './common/logging';
import type { AppConfig } from './config/app-config';
import { BODY_LIMIT_BYTES, configureFastify, requestIdFor } from './common/http/fastify-setup';
import { createValidationPipe } from './common/http/validation';
import { openDatabase } from './database/database.module';

/** Builds the whole service (database first), ready to listen. Used by main.ts and by the tests. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const logLevels = applyLogLevel(config.logLevel);
  const database = await openDatabase(config);
  const adapter = new FastifyAdapter({
    genReqId: requestIdFor,
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: true,
  });
  configureFastify(adapter.getInstance());
  let app: NestFastifyApplication;
  try {
    app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, database), adapter, {
      logger: logLevels,
      abortOnError: false,
      // Our own JSON parser (configureFastify) keeps each number's source text for exact money.
      bodyParser: false,
    });
  } catch (error) {
    // The module never came up, so its shutdown hooks will not run: release the database here.
    await database.dataSource.destroy();
    await database.embedded?.stop();
    throw error;
  }
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  return app;
}
