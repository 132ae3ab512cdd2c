import type { BatchSizeSummary } from './batch-sizes';
import type { PhaseLoad } from './load';
import type { PgbenchBound } from './pgbench';
import type { BenchOptions } from './options';
import type { SeedResult } from './seed';
import type { ServiceGcSummary } from './service-gc';
import type { ServiceLatencySummary } from './service-latency';
import type { MachineStalls } from './stall-probe';
import type { WebhookBenchResult } from './webhook-receiver';
import type { Writeback } from './writeback';
import type { StatementCounts } from './statements';

/** One measured phase: its load figures and what each successful operation cost. */
export interface PhaseResult extends PhaseLoad {
  cpuMsPerOp: { service?: number; postgres?: number; loadGenerator: number };
  cpuCoresBusy: { service?: number; postgres?: number };
  walBytesPerOp: number;
  walFullPageImagesPerOp?: number;
  statements: StatementCounts;
  serviceRssMiB?: number;
  /** Transfers per database call (group commit), from the service's own histogram. */
  batchSize?: BatchSizeSummary;
  /** V8's collections in the service over the phase, from its own metrics. */
  serviceGc?: ServiceGcSummary;
  /** The completed transfers the service itself answered within 10 ms, by its own histogram. */
  serviceLatency?: ServiceLatencySummary;
  /** What a probe thread saw of the machine stopping everything during the phase. */
  machineStalls?: MachineStalls;
  /** The kernel writing the page cache back in bursts during the phase (Linux). */
  writeback?: Writeback;
}

/** results.json */
export interface BenchSummary {
  date: string;
  mode: string;
  options: BenchOptions;
  phases: PhaseResult[];
  /** pgbench's TPC-B on the same server in the same run: the bound the transfers are compared with. */
  bound?: PgbenchBound;
  /** Why there is no bound (pgbench missing), when there is none. */
  boundMissing?: string;
  seed?: SeedResult;
  outboxDrainS?: number;
  /** With --webhook: events expected and received at the receiver. */
  webhooks?: WebhookBenchResult;
  serviceMemoryMiB?: { rss: number; peak: number };
  /** The NODE_OPTIONS the service ran with: the shipped heap settings, then SERVICE_NODE_OPTIONS. */
  serviceNodeOptions: string;
  loadAverage1m: number;
  invariantViolations: string[];
}

/** The goals of the performance work, checked on every run (closed loop, 32 clients, hot mix). */
export const TARGETS = {
  transfersPerSecond: 2_400,
  ratioToBound: 0.5,
  openLoopP99Ms: 10,
  serviceRssMiB: 300,
  largeThroughputLoss: 0.15,
  largeReadsP99Ms: 20,
  spec: { transfersPerSecond: 500, p95Ms: 100, p99Ms: 250 },
};
