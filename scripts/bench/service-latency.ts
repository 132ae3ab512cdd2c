/** The service's payments_transfer_duration_seconds for completed transfers (201) at one moment, cumulative. */
export interface ServiceLatencySnapshot {
  within10ms: number;
  count: number;
}

/**
 * How many of a phase's completed transfers the service itself timed at 10 ms or less, from the
 * request reaching its idempotency interceptor to the answer leaving it: the service and the
 * database, without the HTTP hops, the kernel and the load generator.
 */
export interface ServiceLatencySummary {
  transfers: number;
  /** Percent, one decimal. */
  within10msPercent: number;
}

const NAME = 'payments_transfer_duration_seconds';

/** Parses the Prometheus text of /actuator/prometheus; undefined when the metric is not there. */
export function serviceLatencyFrom(prometheusText: string | undefined): ServiceLatencySnapshot | undefined {
  if (!prometheusText) return undefined;
  let snapshot: ServiceLatencySnapshot | undefined;
  for (const line of prometheusText.split('\n')) {
    if (!line.startsWith(NAME) || !line.includes('outcome="201"')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    snapshot ??= { within10ms: 0, count: 0 };
    if (line.startsWith(`${NAME}_bucket`) && line.includes('le="0.01"')) snapshot.within10ms += value;
    else if (line.startsWith(`${NAME}_count`)) snapshot.count += value;
  }
  return snapshot;
}

export function summariseServiceLatency(
  before: ServiceLatencySnapshot | undefined,
  after: ServiceLatencySnapshot | undefined,
): ServiceLatencySummary | undefined {
  if (!after) return undefined;
  const transfers = after.count - (before?.count ?? 0);
  if (transfers <= 0) return undefined;
  const within = after.within10ms - (before?.within10ms ?? 0);
  return { transfers, within10msPercent: Math.round((within / transfers) * 1000) / 10 };
}
