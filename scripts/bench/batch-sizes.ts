/** The service's payments_transfer_batch_size histogram at one moment (cumulative, as Prometheus keeps it). */
export interface BatchSizeSnapshot {
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
}

/** Transfers per database call over a phase; p50 and p99 are the histogram's bucket bounds (at most). */
export interface BatchSizeSummary {
  batches: number;
  mean: number;
  p50: number;
  p99: number;
}

const NAME = 'payments_transfer_batch_size';

/** Parses the Prometheus text of /actuator/prometheus; undefined when it could not be read. */
export function batchSizesFrom(prometheusText: string | undefined): BatchSizeSnapshot | undefined {
  if (prometheusText === undefined) return undefined;
  const snapshot: BatchSizeSnapshot = { buckets: [], sum: 0, count: 0 };
  for (const line of prometheusText.split('\n')) {
    if (!line.startsWith(NAME)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const le = /le="([^"]+)"/.exec(line)?.[1];
    if (line.startsWith(`${NAME}_bucket`) && le !== undefined && le !== '+Inf') {
      snapshot.buckets.push({ le: Number(le), count: value });
    } else if (line.startsWith(`${NAME}_sum`)) snapshot.sum = value;
    else if (line.startsWith(`${NAME}_count`)) snapshot.count = value;
  }
  return snapshot;
}

export function summariseBatchSizes(
  before: BatchSizeSnapshot | undefined,
  after: BatchSizeSnapshot | undefined,
): BatchSizeSummary | undefined {
  if (!before || !after) return undefined;
  const batches = after.count - before.count;
  if (batches <= 0) return undefined;
  const cumulative = after.buckets.map((bucket, i) => ({
    le: bucket.le,
    count: bucket.count - (before.buckets[i]?.count ?? 0),
  }));
  const largest = after.buckets.at(-1)?.le ?? Infinity;
  const quantile = (q: number) => cumulative.find((bucket) => bucket.count >= q * batches)?.le ?? largest;
  return {
    batches,
    mean: Math.round(((after.sum - before.sum) / batches) * 10) / 10,
    p50: quantile(0.5),
    p99: quantile(0.99),
  };
}
