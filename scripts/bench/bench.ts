/**
 * npm run bench -- [--duration 30] [--concurrency 32] [--users 400] [--hot 5] [--hot-share 0.2] [--warmup 5]
 *                  [--database-url postgres://...] [--kafka] [--upi-provider] [--json]
 *
 * Starts PostgreSQL (embedded, fsync on, unless --database-url) and the built service as a child process,
 * registers users, drives transfers over HTTP with unique Idempotency-Keys, prints throughput and latency,
 * measures how long the outbox takes to drain after the load, then checks the ledger invariants in the
 * database. Exits 1 on any failed request or broken invariant. --kafka starts a real Kafka broker
 * (scripts/kafka/broker) and runs the service in cluster mode against it. --upi-provider starts an
 * accept-all UPI verification provider on 127.0.0.1 and points UPI_VERIFICATION_URL at it.
 * Variables such as KAFKA_BROKERS, UPI_VERIFICATION_URL or RATE_LIMIT_PER_SECOND pass through to the service.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { findLedgerViolations } from '../lib/ledger-invariants';
import { findFreePort, REPO_ROOT, ServiceProcess } from '../lib/service-process';

interface Options {
  durationS: number;
  concurrency: number;
  users: number;
  hot: number;
  hotShare: number;
  warmupS: number;
  databaseUrl?: string;
  kafka: boolean;
  upiProvider: boolean;
  json: boolean;
}

interface BenchUser {
  upiId: string;
  token: string;
}

interface HttpResult {
  status: number;
  body: string;
}

const TARGETS = { throughput: 500, p95Ms: 100, p99Ms: 250 };

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '30' },
      concurrency: { type: 'string', default: '32' },
      users: { type: 'string', default: '400' },
      hot: { type: 'string', default: '5' },
      'hot-share': { type: 'string', default: '0.2' },
      warmup: { type: 'string', default: '5' },
      'database-url': { type: 'string' },
      kafka: { type: 'boolean', default: false },
      'upi-provider': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  return {
    durationS: Number(values.duration),
    concurrency: Number(values.concurrency),
    users: Number(values.users),
    hot: Number(values.hot),
    hotShare: Number(values['hot-share']),
    warmupS: Number(values.warmup),
    databaseUrl: values['database-url'],
    kafka: values.kafka,
    upiProvider: values['upi-provider'],
    json: values.json,
  };
}

class HttpDriver {
  private readonly agent: Agent;
  constructor(
    private readonly baseUrl: URL,
    sockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent: this.agent,
          host: this.baseUrl.hostname,
          port: this.baseUrl.port,
          method,
          path,
          headers: payload ? { 'content-type': 'application/json', ...headers } : headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

async function registerUsers(http: HttpDriver, count: number, runId: string): Promise<BenchUser[]> {
  const users: BenchUser[] = [];
  for (let start = 0; start < count; start += 32) {
    const batch = Array.from({ length: Math.min(32, count - start) }, async (_, i) => {
      const upiId = `bench.${runId}.${start + i}@okbank`;
      const phoneNumber = String(7_000_000_000 + start + i);
      const registered = await http.send('POST', '/api/v1/users', {
        name: 'Bench',
        upiId,
        phoneNumber,
        balance: 10_000_000,
      });
      if (registered.status !== 201) throw new Error(`registration failed: ${registered.status} ${registered.body}`);
      const login = await http.send('POST', '/api/v1/auth/login', { upiId });
      users.push({ upiId, token: JSON.parse(login.body).accessToken });
    });
    await Promise.all(batch);
  }
  return users;
}

interface LoadResult {
  latenciesMs: number[];
  statuses: Map<string, number>;
  elapsedS: number;
}

/** Closed-loop load: `concurrency` clients, each sending the next transfer when the last one answers. */
async function driveTransfers(http: HttpDriver, users: BenchUser[], options: Options, seconds: number) {
  const result: LoadResult = { latenciesMs: [], statuses: new Map(), elapsedS: 0 };
  const hotReceivers = users.slice(0, options.hot);
  let cursor = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      // Senders in rotation, so each stays well under the per-user rate limit; some receivers are hot.
      const sender = users[cursor++ % users.length];
      let receiver =
        Math.random() < options.hotShare
          ? hotReceivers[Math.floor(Math.random() * hotReceivers.length)]
          : users[Math.floor(Math.random() * users.length)];
      if (receiver === sender) receiver = users[(users.indexOf(sender) + 1) % users.length];
      const body = {
        senderUpiId: sender.upiId,
        receiverUpiId: receiver.upiId,
        amount: (1 + Math.random() * 99).toFixed(2),
      };
      const sent = performance.now();
      let outcome: string;
      try {
        const response = await http.send('POST', '/api/v1/transactions', body, {
          authorization: `Bearer ${sender.token}`,
          'idempotency-key': randomUUID(),
        });
        outcome = String(response.status);
      } catch (error) {
        outcome = `network: ${(error as Error).message}`;
      }
      result.latenciesMs.push(performance.now() - sent);
      result.statuses.set(outcome, (result.statuses.get(outcome) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  result.elapsedS = (performance.now() - started) / 1000;
  return result;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const options = readOptions();
  Logger.overrideLogger(['error', 'warn']);
  const runId = randomUUID().slice(0, 8);
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = options.databaseUrl;
  const scratch = mkdtempSync(join(tmpdir(), 'payments-bench-'));
  chmodSync(scratch, 0o755);
  if (!databaseUrl) {
    embedded = new EmbeddedDatabase({ dataDir: join(scratch, 'db'), quiet: true });
    databaseUrl = await embedded.start();
  }
  const kafkaPort = options.kafka ? await findFreePort() : undefined;
  const broker = kafkaPort && { port: String(kafkaPort), dataDir: join(scratch, 'kafka') };
  if (broker)
    execFileSync(join(REPO_ROOT, 'scripts', 'kafka', 'broker'), ['start', broker.port, broker.dataDir], {
      stdio: 'inherit',
    });
  const provider = options.upiProvider ? await startAcceptAllUpiProvider() : undefined;
  const service = await ServiceProcess.start({
    DATABASE_URL: databaseUrl,
    DATA_DIR: join(scratch, 'service'),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...(provider ? { UPI_VERIFICATION_URL: provider.url } : {}),
    ...(broker ? { KAFKA_BROKERS: `127.0.0.1:${broker.port}`, KAFKA_TOPIC: `bench-${runId}` } : {}),
  });
  const http = new HttpDriver(new URL(service.baseUrl), options.concurrency);
  const db = new Client({ connectionString: databaseUrl });
  let failed: boolean;
  try {
    log(options, `service pid ${service.pid} at ${service.baseUrl}; registering ${options.users} users`);
    const users = await registerUsers(http, options.users, runId);
    log(options, `warm-up ${options.warmupS} s`);
    await driveTransfers(http, users, options, options.warmupS);
    log(options, `measuring ${options.durationS} s at concurrency ${options.concurrency}`);
    const load = await driveTransfers(http, users, options, options.durationS);
    const memory = await service.memory();

    await db.connect();
    const outboxDrainS = await waitForOutboxDrain(db);
    const violations = await findLedgerViolations(db);
    const sorted = [...load.latenciesMs].sort((a, b) => a - b);
    const created = load.statuses.get('201') ?? 0;
    const errors = load.latenciesMs.length - created;
    const report = {
      durationS: Number(load.elapsedS.toFixed(1)),
      concurrency: options.concurrency,
      users: options.users,
      requests: load.latenciesMs.length,
      transfersPerSecond: Number((created / load.elapsedS).toFixed(1)),
      latencyMs: {
        p50: round(percentile(sorted, 50)),
        p95: round(percentile(sorted, 95)),
        p99: round(percentile(sorted, 99)),
        max: round(sorted[sorted.length - 1]),
      },
      statuses: Object.fromEntries(load.statuses),
      errors,
      mode: (options.kafka ? 'kafka' : 'light') + (provider ? ` + UPI provider (${provider.calls()} calls)` : ''),
      outboxDrainS,
      serviceMemoryMiB: memory && { rss: round(memory.rssMiB), peak: round(memory.peakRssMiB) },
      loadAverage1m: round(loadavg()[0]),
      invariantViolations: violations,
    };
    failed = errors > 0 || violations.length > 0 || outboxDrainS === undefined;
    print(options, report);
  } finally {
    http.close();
    await db.end().catch(() => undefined);
    await service.stop('SIGTERM');
    provider?.server.close();
    await embedded?.stop();
    if (broker)
      execFileSync(join(REPO_ROOT, 'scripts', 'kafka', 'broker'), ['stop', broker.port, broker.dataDir], {
        stdio: 'inherit',
      });
    rmSync(scratch, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

/** A UPI verification provider (CONTRACTS.md) that accepts every ID, counting its calls. */
async function startAcceptAllUpiProvider() {
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

/** Seconds from the end of the load until every outbox event is published (undefined after 60 s). */
async function waitForOutboxDrain(db: Client): Promise<number | undefined> {
  const started = performance.now();
  while (performance.now() - started < 60_000) {
    const result = await db.query('SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL');
    if (result.rows[0].n === 0) return round((performance.now() - started) / 1000);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

const round = (value: number) => Math.round(value * 10) / 10;

function log(options: Options, message: string): void {
  if (!options.json) console.log(`bench: ${message}`);
}

function print(options: Options, report: Record<string, any>): void {
  if (options.json) {
    console.log(JSON.stringify(report));
    return;
  }
  const mark = (ok: boolean) => (ok ? 'meets' : 'MISSES');
  console.log(`
transfers/s      ${report.transfersPerSecond}  (${mark(report.transfersPerSecond >= TARGETS.throughput)} >= ${TARGETS.throughput})
latency p50      ${report.latencyMs.p50} ms
latency p95      ${report.latencyMs.p95} ms  (${mark(report.latencyMs.p95 < TARGETS.p95Ms)} < ${TARGETS.p95Ms})
latency p99      ${report.latencyMs.p99} ms  (${mark(report.latencyMs.p99 < TARGETS.p99Ms)} < ${TARGETS.p99Ms})
latency max      ${report.latencyMs.max} ms
requests         ${report.requests} in ${report.durationS} s, concurrency ${report.concurrency}, ${report.users} users
statuses         ${JSON.stringify(report.statuses)}
errors           ${report.errors}
mode             ${report.mode}; outbox drained ${report.outboxDrainS === undefined ? 'NOT within 60 s' : `${report.outboxDrainS} s after the load`}
service memory   ${report.serviceMemoryMiB ? `${report.serviceMemoryMiB.rss} MiB RSS (peak ${report.serviceMemoryMiB.peak})` : 'n/a'}
load average     ${report.loadAverage1m} (1 min)
invariants       ${report.invariantViolations.length === 0 ? 'all hold' : report.invariantViolations.join('\n                 ')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
