import { existsSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config/app-config';

async function main(): Promise<void> {
  // Variables already in the environment win over the file.
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadConfig();
  const app = await createApp(config);
  try {
    await app.listen({ port: config.port, host: '0.0.0.0' });
  } catch (error) {
    await app.close();
    throw error;
  }
  new Logger('Bootstrap').log(`Payment service listening on http://localhost:${config.port}`);
}

main().catch((error: unknown) => {
  // Bad configuration or an unusable database: say why in one place and stop.
  const message =
    error instanceof ConfigError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  console.error(`Payment service failed to start: ${message}`);
  process.exit(1);
});
