import { describeBytes } from '../lib/bytes-per-transfer';
import { largeAgainstEmpty } from '../lib/large-against-empty';
import { describeShape } from './pgbench';
import type { BenchSummary, PhaseResult } from './results';
import { describeBacklog, exitStatus, headline } from './verdict';

const orNa = (value: number | undefined, unit = '') => (value === undefined ? 'n/a' : `${value}${unit}`);

/** The human-readable summary, the verdict last; results.json holds the same and more. */
export function printSummary(summary: BenchSummary, files: { json: string; html: string }): void {
  const { serviceMemoryMiB: rss, webhooks: hooks } = summary;
  const lines = [
    '',
    describeBound(summary),
    ...summary.phases.flatMap(describePhase),
    ...Object.entries(summary.bytesPerTransfer ?? {}).map(
      ([database, bytes]) =>
        `bytes/transfer   ${database}: ${describeBytes(bytes, summary.bound?.walBytesPerTransaction)}`,
    ),
    ...largeAgainstEmpty(summary.phases).map((line) => `large database   ${line}`),
    `outbox           ${summary.outboxDrainS === undefined ? 'NOT drained within 60 s' : `drained ${summary.outboxDrainS} s after the load`} (${summary.mode})`,
    ...(hooks
      ? [
          `webhooks         ${hooks.received} of ${hooks.expected} events received, ${hooks.duplicates} duplicates, last ${hooks.drainMs} ms after the load`,
        ]
      : []),
    `service RSS      ${rss ? `${rss.rss} MiB, peak ${rss.peak} MiB` : 'n/a'} (NODE_OPTIONS ${summary.serviceNodeOptions})`,
    `load average     ${summary.loadAverage1m} (1 min): a busy machine's numbers say little`,
    `invariants       ${summary.invariantViolations.length === 0 ? 'all hold' : summary.invariantViolations.join('\n                 ')}`,
    `results          ${files.json}`,
    `report           ${files.html}`,
    ...describeChecks(summary),
  ];
  console.log(lines.join('\n'));
}

function describeBound(summary: BenchSummary): string {
  const bound = summary.bound;
  if (!bound) return `bound: none (${summary.boundMissing ?? '--bound-duration 0'})`;
  return (
    `bound: pgbench TPC-B (${describeShape()}), same server, ${bound.durationS} s: ` +
    `${bound.tps} transactions/s, latency average ${orNa(bound.latencyAvgMs, ' ms')}`
  );
}

function describePhase(phase: PhaseResult): string[] {
  const l = phase.latencyMs;
  const lines = [
    `${phase.phase} (${phase.mode})`,
    `  ${phase.okPerSecond}/s over ${phase.elapsedS} s; latency p50 ${l.p50}, p95 ${l.p95}, p99 ${l.p99}, max ${l.max} ms; errors ${phase.errors}` +
      (phase.errors > 0 ? ` ${JSON.stringify(phase.statuses)}` : ''),
  ];
  if (phase.webhookBacklog) lines.push(`  webhooks: ${describeBacklog(phase)}`);
  for (const [kind, k] of Object.entries(phase.byKind ?? {})) {
    lines.push(`  ${kind}: ${k.count} reads, p50 ${k.p50}, p95 ${k.p95}, p99 ${k.p99}, max ${k.max} ms`);
  }
  return lines;
}

function describeChecks(summary: BenchSummary): string[] {
  const width = Math.max(...summary.checks.map((c) => c.what.length));
  return [
    '',
    "against the spec's targets and the bound",
    ...summary.checks.map(
      (c) => `  ${c.pass ? 'pass' : 'FAIL'}  ${c.what.padEnd(width)}  ${c.measured} (target ${c.target})`,
    ),
    `${headline(summary.checks)} (exit status ${exitStatus(summary.checks)})`,
  ];
}
