import { setTimeout as sleep } from 'node:timers/promises';

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
  byKind?: Record<string, LatencySummary & { count: number }>;
}

/** Everything one measured phase saw, per operation and per second (the report draws from it). */
export class Recorder {
  readonly latenciesMs: number[] = [];
  readonly seconds: SecondBucket[] = [];
  private readonly statuses = new Map<string, number>();
  private readonly kinds = new Map<string, number[]>();
  private readonly started = performance.now();
  private finished?: number;

  constructor(
    readonly phase: string,
    readonly mode: string,
  ) {}

  record(result: Outcome, latencyMs: number): void {
    const second = this.bucket(Math.floor((performance.now() - this.started) / 1000));
    second.latenciesMs.push(latencyMs);
    if (result.ok) second.ok += 1;
    else second.errors += 1;
    this.latenciesMs.push(latencyMs);
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
    if (this.kinds.size > 0) {
      load.byKind = Object.fromEntries(
        [...this.kinds].map(([kind, list]) => [kind, { count: list.length, ...summarise(list) }]),
      );
    }
    return load;
  }
}

/** A line per second while a phase runs: what the last full second did. */
export function startProgress(recorder: Recorder, write: (line: string) => void) {
  let shown = 0;
  const timer = setInterval(() => {
    const index = Math.floor(recorder.elapsedS) - 1;
    if (index < shown) return;
    const second = recorder.bucket(index);
    shown = index + 1;
    const latency = summarise(second.latenciesMs);
    write(
      `[${recorder.phase}] ${String(index + 1).padStart(3)} s  ${String(second.ok).padStart(5)}/s  ` +
        `p50 ${latency.p50} ms  p99 ${latency.p99} ms  errors ${second.errors}`,
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
 * behind it (no coordinated omission). The event loop's timers are a millisecond or so late;
 * that counts as latency too, noise against the spec's 100 ms.
 */
export async function runOpenLoop(recorder: Recorder, ratePerS: number, seconds: number, operation: Operation) {
  const intervalMs = 1000 / ratePerS;
  const total = Math.round(ratePerS * seconds);
  const answers: Promise<void>[] = [];
  const send = (intendedMs: number) =>
    answers.push(settle(operation).then((result) => recorder.record(result, performance.now() - intendedMs)));
  const startMs = performance.now();
  let next = 0;
  while (next < total) {
    const now = performance.now();
    while (next < total && startMs + next * intervalMs <= now) send(startMs + next++ * intervalMs);
    await sleep(Math.max(0, startMs + next * intervalMs - performance.now()));
  }
  await Promise.all(answers);
  return recorder.finish();
}

async function settle(operation: Operation): Promise<Outcome> {
  try {
    return await operation();
  } catch (error) {
    return { outcome: `network: ${(error as Error).message}`, ok: false };
  }
}

/** Nearest-rank percentiles, to 0.1 ms; NaN for no latencies. */
export function summarise(latenciesMs: number[]): LatencySummary {
  const sorted = Float64Array.from(latenciesMs).sort();
  const at = (p: number) => round(sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN);
  return { p50: at(50), p95: at(95), p99: at(99), max: at(100) };
}

export const round = (value: number) => Math.round(value * 10) / 10;
