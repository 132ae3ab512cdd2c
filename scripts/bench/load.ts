import { monotonicMs, runSendClock } from './send-clock';

/** What one operation ended as: `outcome` is the status or the network error, for the status counts. */
export interface Outcome {
  outcome: string;
  ok: boolean;
  /** Which operation of a mix, for per-kind percentiles. */
  kind?: string;
}

export type Operation = () => Promise<Outcome>;

export interface SecondBucket {
  ok: number;
  errors: number;
  latenciesMs: number[];
  rssMiB?: number;
}

export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface PhaseLoad {
  phase: string;
  mode: string;
  elapsedS: number;
  operations: number;
  okPerSecond: number;
  errors: number;
  statuses: Record<string, number>;
  latencyMs: LatencySummary;
  /** Open loop only: from the actual send, without the queueing before it. */
  serviceTimeMs?: LatencySummary;
  byKind?: Record<string, LatencySummary & { count: number }>;
}

/** Everything one measured phase saw, per operation and per second (the report draws from it). */
export class Recorder {
  readonly latenciesMs: number[] = [];
  readonly serviceTimesMs: number[] = [];
  readonly seconds: SecondBucket[] = [];
  private readonly statuses = new Map<string, number>();
  private readonly kinds = new Map<string, number[]>();
  private started = performance.now();
  private finished?: number;

  constructor(
    readonly phase: string,
    readonly mode: string,
  ) {}

  /** The phase starts now, not when it was set up (an open loop's clock takes a moment to start). */
  startNow(): void {
    this.started = performance.now();
  }

  record(result: Outcome, latencyMs: number, serviceTimeMs?: number): void {
    const second = this.bucket(Math.floor((performance.now() - this.started) / 1000));
    second.latenciesMs.push(latencyMs);
    if (result.ok) second.ok += 1;
    else second.errors += 1;
    this.latenciesMs.push(latencyMs);
    if (serviceTimeMs !== undefined) this.serviceTimesMs.push(serviceTimeMs);
    this.statuses.set(result.outcome, (this.statuses.get(result.outcome) ?? 0) + 1);
    if (result.kind) {
      const list = this.kinds.get(result.kind) ?? [];
      list.push(latencyMs);
      this.kinds.set(result.kind, list);
    }
  }

  bucket(index: number): SecondBucket {
    while (this.seconds.length <= index) this.seconds.push({ ok: 0, errors: 0, latenciesMs: [] });
    return this.seconds[index];
  }

  get elapsedS(): number {
    return ((this.finished ?? performance.now()) - this.started) / 1000;
  }

  finish(): PhaseLoad {
    this.finished ??= performance.now();
    const ok = this.seconds.reduce((sum, s) => sum + s.ok, 0);
    const load: PhaseLoad = {
      phase: this.phase,
      mode: this.mode,
      elapsedS: round(this.elapsedS),
      operations: this.latenciesMs.length,
      okPerSecond: round(ok / this.elapsedS),
      errors: this.latenciesMs.length - ok,
      statuses: Object.fromEntries(this.statuses),
      latencyMs: summarise(this.latenciesMs),
    };
    if (this.serviceTimesMs.length > 0) load.serviceTimeMs = summarise(this.serviceTimesMs);
    if (this.kinds.size > 0) {
      load.byKind = Object.fromEntries(
        [...this.kinds].map(([kind, list]) => [kind, { count: list.length, ...summarise(list) }]),
      );
    }
    return load;
  }
}

/** A line per second while a phase runs: what the last full second did. */
export function startProgress(
  recorder: Recorder,
  write: (line: string) => void,
  sampleRssMiB: () => number | undefined,
) {
  let shown = 0;
  const timer = setInterval(() => {
    const index = Math.floor(recorder.elapsedS) - 1;
    if (index < shown) return;
    const second = recorder.bucket(index);
    second.rssMiB = sampleRssMiB();
    shown = index + 1;
    const latency = summarise(second.latenciesMs);
    write(
      `[${recorder.phase}] ${String(index + 1).padStart(3)} s  ${String(second.ok).padStart(5)}/s  ` +
        `p50 ${latency.p50} ms  p99 ${latency.p99} ms  errors ${second.errors}` +
        (second.rssMiB === undefined ? '' : `  service RSS ${round(second.rssMiB)} MiB`),
    );
  }, 1000);
  return () => clearInterval(timer);
}

/** Closed loop: `clients` callers, each starting its next operation when the last one answers. */
export async function runClosedLoop(recorder: Recorder, clients: number, seconds: number, operation: Operation) {
  const deadline = performance.now() + seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      const result = await settle(operation);
      recorder.record(result, performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return recorder.finish();
}

/**
 * Open loop: operation i is due at start + i / rate, whether or not earlier ones have answered.
 * Latency counts from that intended time, so a stall shows up in every request that queued
 * behind it (no coordinated omission); the service time from the actual send is kept as well.
 * The sends are timed by a clock thread (send-clock.ts), so they go out on time to a fraction
 * of a millisecond, as pgbench's do.
 */
export async function runOpenLoop(recorder: Recorder, ratePerS: number, seconds: number, operation: Operation) {
  const intervalMs = 1000 / ratePerS;
  const inflight = new Set<Promise<void>>();
  let startMs = 0;
  const send = (index: number) => {
    const intended = startMs + index * intervalMs;
    const sent = monotonicMs();
    const done = settle(operation).then((result) => {
      const now = monotonicMs();
      recorder.record(result, now - intended, now - sent);
      inflight.delete(done);
    });
    inflight.add(done);
  };
  const started = (start: number) => {
    startMs = start;
    recorder.startNow();
  };
  await runSendClock(intervalMs, Math.round(ratePerS * seconds), started, send);
  await Promise.all(inflight);
  return recorder.finish();
}

/** The load a phase offers: open loop at `rate` when there is one, else `concurrency` closed-loop callers. */
export interface LoadShape {
  rate?: number;
  concurrency: number;
}

export function describeLoad(shape: LoadShape): string {
  return shape.rate ? `open loop at ${shape.rate}/s` : `closed loop, ${shape.concurrency} clients`;
}

/** Runs `operation` under the shape's load for the seconds given. */
export function loadDriver(shape: LoadShape, operation: Operation) {
  return (recorder: Recorder, seconds: number): Promise<PhaseLoad> =>
    shape.rate
      ? runOpenLoop(recorder, shape.rate, seconds, operation)
      : runClosedLoop(recorder, shape.concurrency, seconds, operation);
}

/**
 * Before a measurement: `seconds` of closed loop, so the code runs hot and the first collections
 * happen; with a rate, as long again at it, so the service settles at the offered load and the
 * first measured seconds do not pay for what full load left behind (dead rows to vacuum, the
 * outbox to drain). Returns what each step did.
 */
export async function warmUp(
  shape: LoadShape,
  seconds: number,
  operation: Operation,
  say: (line: string) => void,
): Promise<PhaseLoad[]> {
  say(`warm-up ${seconds} s (closed loop, ${shape.concurrency} clients)`);
  const steps = [await runClosedLoop(new Recorder('warm-up', 'closed'), shape.concurrency, seconds, operation)];
  if (shape.rate) {
    const mode = describeLoad(shape);
    say(`settling ${seconds} s at the measured load (${mode})`);
    steps.push(await loadDriver(shape, operation)(new Recorder('settle', mode), seconds));
  }
  return steps;
}

async function settle(operation: Operation): Promise<Outcome> {
  try {
    return await operation();
  } catch (error) {
    return { outcome: `network: ${(error as Error).message}`, ok: false };
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function summarise(latenciesMs: number[]): LatencySummary {
  const sorted = Float64Array.from(latenciesMs).sort();
  const list = Array.from(sorted);
  return {
    p50: round(percentile(list, 50)),
    p95: round(percentile(list, 95)),
    p99: round(percentile(list, 99)),
    max: round(list[list.length - 1] ?? NaN),
  };
}

export const round = (value: number) => Math.round(value * 10) / 10;
