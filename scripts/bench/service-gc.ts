/** The service's nodejs_gc_duration_seconds counters at one moment, by kind (prom-client's default metrics). */
export type GcSnapshot = Record<string, { count: number; sumS: number; over10ms: number }>;

/** What V8's collector did in the service over a phase: pauses on its event loop, by kind. */
export interface ServiceGcSummary {
  /** Full (mark-compact) collections and their pauses. */
  major: { collections: number; pauseMs: number; over10ms: number };
  /** Scavenges of the young generation. */
  minor: { collections: number; pauseMs: number };
  /** Incremental marking steps run on the event loop ahead of a full collection. */
  incrementalMs: number;
}

const NAME = 'nodejs_gc_duration_seconds';

/** Parses the Prometheus text of /actuator/prometheus; undefined when the metric is not there. */
export function gcFrom(prometheusText: string | undefined): GcSnapshot | undefined {
  if (!prometheusText) return undefined;
  const snapshot: GcSnapshot = {};
  const entry = (kind: string) => (snapshot[kind] ??= { count: 0, sumS: 0, over10ms: 0 });
  const bucketAt10ms: Record<string, number> = {};
  for (const line of prometheusText.split('\n')) {
    if (!line.startsWith(NAME)) continue;
    const kind = /kind="([^"]+)"/.exec(line)?.[1];
    if (kind === undefined) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${NAME}_count`)) entry(kind).count = value;
    else if (line.startsWith(`${NAME}_sum`)) entry(kind).sumS = value;
    else if (line.startsWith(`${NAME}_bucket`) && /le="0\.01"/.test(line)) bucketAt10ms[kind] = value;
  }
  for (const [kind, counts] of Object.entries(snapshot))
    counts.over10ms = counts.count - (bucketAt10ms[kind] ?? counts.count);
  return Object.keys(snapshot).length > 0 ? snapshot : undefined;
}

export function summariseGc(
  before: GcSnapshot | undefined,
  after: GcSnapshot | undefined,
): ServiceGcSummary | undefined {
  if (!before || !after) return undefined;
  const delta = (kind: string) => {
    const a = after[kind] ?? { count: 0, sumS: 0, over10ms: 0 };
    const b = before[kind] ?? { count: 0, sumS: 0, over10ms: 0 };
    return {
      collections: a.count - b.count,
      pauseMs: Math.round((a.sumS - b.sumS) * 1000),
      over10ms: a.over10ms - b.over10ms,
    };
  };
  const major = delta('major');
  const minor = delta('minor');
  return {
    major,
    minor: { collections: minor.collections, pauseMs: minor.pauseMs },
    incrementalMs: delta('incremental').pauseMs,
  };
}
