import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger as PinoLogger } from 'nestjs-pino';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { applyLogLevel, requestLoggerOptions, withFrameworkLinesAtDebug } from './common/logging';
import type { AppConfig } from './config/app-config';
import { BODY_LIMIT_BYTES, configureFastify, requestIdFor } from './common/http/fastify-setup';
import { addSecurityHeaders } from './common/http/security-headers';
import { httpLayerErrorOptions } from './common/http/http-layer-errors';
import { createValidationPipe } from './common/http/validation';
import { closeDatabase, openDatabase } from './database/database.module';
import { setUpApiDocs } from './docs/api-docs';
import { findRepoRoot } from './common/repo-root';
import { startTransferEventConsumer } from './outbox/transfer-events.server';

function readPackageVersion(): string {
  return (JSON.parse(readFileSync(join(findRepoRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** Builds the whole service (database first), ready to listen. Used by main.ts and by the tests. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const logLevels = applyLogLevel(config.logLevel);
  const database = await openDatabase(config);
  const adapter = new FastifyAdapter({
    genReqId: requestIdFor,
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    // The client address per-IP limits use: from TRUST_PROXY, never from the leftmost X-Forwarded-For.
    // Fastify takes a hop count too; the adapter's typings leave the number out.
    trustProxy: config.trustProxy as boolean | string[],
    ...httpLayerErrorOptions(config.errorsBaseUrl),
    ...requestLoggerOptions(config.logLevel),
  });
  configureFastify(adapter.getInstance(), config.errorsBaseUrl);
  let app: NestFastifyApplication;
  try {
    app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, database), adapter, {
      logger: logLevels,
      bufferLogs: true,
      abortOnError: false,
      // Our own JSON parser (configureFastify) keeps each number's source text for exact money.
      bodyParser: false,
    });
  } catch (error) {
    // The module never came up, so its shutdown hooks will not run: release the database here.
    await closeDatabase(database);
    throw error;
  }
  app.useLogger(withFrameworkLinesAtDebug(app.get(PinoLogger)));
  addSecurityHeaders(adapter.getInstance());
  setUpApiDocs(app, readPackageVersion());
  app.useGlobalPipes(createValidationPipe());
  await startTransferEventConsumer(app, config);
  return app;
}
