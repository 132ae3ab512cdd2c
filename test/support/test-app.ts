import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/app-config';
import { ApiClient } from './api-client';
import { TEST_JWT_SECRET } from './jwt';
import { makeTempDir, removeTempDir } from './temp-dir';

export interface TestApp {
  api: ApiClient;
  app: NestFastifyApplication;
  close(): Promise<void>;
}

/** The real service over real HTTP on 127.0.0.1, against the run's PostgreSQL. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl) throw new Error('TEST_DATABASE_URL is not set: run the tests through jest (global setup)');
  // A DATA_DIR the caller passes is the caller's to delete; the one made here goes when the app closes.
  const ownDataDir = env.DATA_DIR === undefined ? makeTempDir('payments-app') : undefined;
  try {
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      DATA_DIR: ownDataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: 'fatal',
      DB_POOL_SIZE: '10',
      // The harness connects as the test server's superuser by design (it also administers it), in any NODE_ENV.
      DATABASE_ALLOW_PRIVILEGED: 'true',
      ...env,
    });
    const app = await createApp(config);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address();
    if (!address || typeof address === 'string') throw new Error('test app has no TCP address');
    const close = async () => {
      try {
        await app.close();
      } finally {
        if (ownDataDir) removeTempDir(ownDataDir);
      }
    };
    return { api: new ApiClient(`http://127.0.0.1:${address.port}`), app, close };
  } catch (error) {
    if (ownDataDir) removeTempDir(ownDataDir);
    throw error;
  }
}
