import type { BytesPerTransfer } from '../lib/bytes-per-transfer';
import type { PhaseLoad } from './load';
import type { BenchOptions } from './options';
import type { PgbenchBound } from './pgbench';
import type { SeedResult } from '../lib/seed-large';
import type { WebhookBacklog } from '../lib/webhook-metrics';
import type { WebhookBenchResult } from './webhook-receiver';

/** One measured phase: its load figures, and what it measured. */
export interface PhaseResult extends PhaseLoad {
  workload: 'transfers' | 'history reads' | 'holds: place, then capture';
  loop: 'closed' | 'open';
  database: 'empty' | 'large';
  /** Open loop: the transfers per second offered. */
  offeredPerSecond?: number;
  /** Transfers with --webhook: the oldest pending delivery and the deliveries per second during the load. */
  webhookBacklog?: WebhookBacklog;
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
  /** Measured around the closed loop, per database (scripts/lib/bytes-per-transfer.ts). */
  bytesPerTransfer?: Partial<Record<PhaseResult['database'], BytesPerTransfer>>;
  outboxDrainS?: number;
  /** With --webhook: events expected and received at the receiver. */
  webhooks?: WebhookBenchResult;
  serviceMemoryMiB?: { rss: number; peak: number };
  /** The NODE_OPTIONS the service ran with: the shipped heap settings, then SERVICE_NODE_OPTIONS. */
  serviceNodeOptions: string;
  loadAverage1m: number;
  invariantViolations: string[];
  /** The run judged (verdict.ts): the exit status is 1 when one of them fails. */
  checks: Check[];
}

/** One line of the verdict: what was measured against which target. */
export interface Check {
  what: string;
  measured: string;
  target: string;
  pass: boolean;
}
