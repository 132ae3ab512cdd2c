import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { primaryUrl } from '../lib/cli-database';
import { findFreePort, REPO_ROOT, ServiceProcess } from '../lib/service-process';
import type { BenchOptions } from './options';
import { startWebhookBench, type WebhookBench } from './webhook-receiver';

/** Everything a run starts (database, optional broker and webhook receiver, the built service) and stops. */
export interface BenchEnvironment {
  databaseUrl: string;
  service: ServiceProcess;
  /** With --webhook: the receiver that counts what the endpoint was sent. */
  webhooks?: WebhookBench;
  mode: string;
  close(): Promise<void>;
}

export async function startEnvironment(options: BenchOptions, runId: string): Promise<BenchEnvironment> {
  const scratch = mkdtempSync(join(tmpdir(), 'payments-bench-'));
  chmodSync(scratch, 0o755);
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(scratch, { recursive: true, force: true })];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  };
  try {
    let url = options.databaseUrl;
    if (!url) {
      const embedded = new EmbeddedDatabase({ dataDir: join(scratch, 'db'), quiet: true });
      url = await embedded.start();
      cleanups.push(() => embedded.stop());
    }
    const serviceUrl = url; // several hosts: the service follows the primary; the bench uses it
    url = await primaryUrl(url);

    const broker = options.kafka ? { port: String(await findFreePort()), dataDir: join(scratch, 'kafka') } : undefined;
    if (broker) {
      runBroker('start', broker);
      cleanups.push(() => runBroker('stop', broker));
    }

    const webhooks = options.webhook ? await startWebhookBench() : undefined;
    const service = await ServiceProcess.start({
      DATABASE_URL: serviceUrl,
      DATA_DIR: join(scratch, 'service'),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ...(broker ? { KAFKA_BROKERS: `127.0.0.1:${broker.port}`, KAFKA_TOPIC: `bench-${runId}` } : {}),
      ...webhooks?.serviceEnv,
    });
    cleanups.push(async () => void (await service.stop('SIGTERM')));
    await webhooks?.subscribe(service.baseUrl);
    return {
      databaseUrl: url,
      service,
      webhooks,
      mode: (options.kafka ? 'kafka' : 'light') + (webhooks ? ' + webhook' : ''),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

function runBroker(command: 'start' | 'stop', broker: { port: string; dataDir: string }): void {
  execFileSync(join(REPO_ROOT, 'scripts', 'kafka', 'broker'), [command, broker.port, broker.dataDir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
