import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { findFreePort, REPO_ROOT, ServiceProcess } from '../lib/service-process';
import type { BenchOptions } from './options';
import { findPostmasterPid } from './resources';
import { enablePgStatStatements } from './statements';
import { recycleWalSegments } from './wal-segments';
import { startWebhookBench, type WebhookBench } from './webhook-receiver';

/** Everything a run starts (database, optional broker and provider, the built service) and stops. */
export interface BenchEnvironment {
  databaseUrl: string;
  service: ServiceProcess;
  postmasterPid?: number;
  pgStatStatements: boolean;
  /** The embedded server's WAL warm-up (wal-segments.ts); absent on a server of --database-url. */
  walWarmUp?: { seconds: number; ready: number };
  upiProviderCalls?: () => number;
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
    let databaseUrl = options.databaseUrl;
    let embedded: EmbeddedDatabase | undefined;
    if (!databaseUrl) {
      embedded = new EmbeddedDatabase({ dataDir: join(scratch, 'db'), quiet: true });
      databaseUrl = await embedded.start();
      cleanups.push(() => embedded!.stop());
    }
    const url = databaseUrl;
    const connect = async () => {
      const client = new Client({ connectionString: url });
      await client.connect();
      return client;
    };
    const pgStatStatements = await enablePgStatStatements(connect, embedded);
    const probe = await connect();
    const postmasterPid = await findPostmasterPid(probe, embedded && join(scratch, 'db', 'postgres'));
    const walWarmUp = embedded ? await recycleWalSegments(probe) : undefined;
    await probe.end();

    const broker = options.kafka ? { port: String(await findFreePort()), dataDir: join(scratch, 'kafka') } : undefined;
    if (broker) {
      runBroker('start', broker);
      cleanups.push(() => runBroker('stop', broker));
    }
    const provider = options.upiProvider ? await startAcceptAllUpiProvider() : undefined;
    if (provider) cleanups.push(() => void provider.server.close());

    const webhooks = options.webhook ? await startWebhookBench() : undefined;
    const service = await ServiceProcess.start({
      DATABASE_URL: url,
      DATA_DIR: join(scratch, 'service'),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ...(provider ? { UPI_VERIFICATION_URL: provider.url } : {}),
      ...(broker ? { KAFKA_BROKERS: `127.0.0.1:${broker.port}`, KAFKA_TOPIC: `bench-${runId}` } : {}),
      ...webhooks?.serviceEnv,
    });
    cleanups.push(async () => void (await service.stop('SIGTERM')));
    await webhooks?.subscribe(service.baseUrl);
    return {
      databaseUrl: url,
      service,
      postmasterPid,
      pgStatStatements,
      walWarmUp,
      upiProviderCalls: provider?.calls,
      webhooks,
      mode: (options.kafka ? 'kafka' : 'light') + (provider ? ' + UPI provider' : '') + (webhooks ? ' + webhook' : ''),
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

/** A UPI verification provider that accepts every ID, counting its calls. */
async function startAcceptAllUpiProvider(): Promise<{ server: Server; url: string; calls: () => number }> {
  let calls = 0;
  const server = createServer((request, response) => {
    calls += 1;
    request
      .resume()
      .on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"valid":true}'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/verify`, calls: () => calls };
}
