import { describeShape, type PgbenchTail } from './pgbench';
import { type BenchSummary, type PhaseResult, TARGETS } from './results';
import type { MachineStalls } from './stall-probe';
import type { Writeback } from './writeback';

const mark = (ok: boolean) => (ok ? 'meets' : 'MISSES');
const orNa = (value: number | undefined, unit = '') => (value === undefined ? 'n/a' : `${value}${unit}`);

/** The human-readable summary; results.json holds the same and more. */
export function printSummary(summary: BenchSummary, files: { json: string; html: string }): void {
  const lines = ['', ...describeBound(summary), ...summary.phases.flatMap(describePhase), ...describeTargets(summary)];
  lines.push(
    `outbox           ${summary.outboxDrainS === undefined ? 'NOT drained within 60 s' : `drained ${summary.outboxDrainS} s after the load`} (${summary.mode})`,
    ...describeWebhooks(summary),
    `load average     ${summary.loadAverage1m} (1 min); numbers from a shared or busy machine are not final`,
    `invariants       ${summary.invariantViolations.length === 0 ? 'all hold' : summary.invariantViolations.join('\n                 ')}`,
    `results          ${files.json}`,
    `report           ${files.html}`,
  );
  console.log(lines.join('\n'));
}

function describeBound(summary: BenchSummary): string[] {
  const bound = summary.bound;
  if (!bound) return [`bound: none (${summary.boundMissing ?? '--bound-duration 0'})`];
  return [
    `bound: pgbench TPC-B (${describeShape()}), same server, ${bound.durationS} s`,
    `  ${bound.tps} transactions/s (${bound.transactions} in all), latency average ${orNa(bound.latencyAvgMs, ' ms')}`,
    `  CPU per TPC-B transaction: PostgreSQL ${orNa(bound.cpuMsPerTransaction.postgres, ' ms')}, pgbench ${orNa(bound.cpuMsPerTransaction.pgbench, ' ms')}; WAL ${bound.walBytesPerTransaction} B`,
    ...describeBoundTail(bound.atRate),
  ];
}

function describeBoundTail(tail: PgbenchTail | undefined): string[] {
  if (!tail) return [];
  const l = tail.latencyMs;
  return [
    `  at ${tail.rate}/s offered (-R, ${tail.transactions} transactions): latency p50 ${l.p50}, p95 ${l.p95}, p99 ${l.p99}, max ${l.max} ms, from the scheduled start; PostgreSQL CPU ${orNa(tail.postgresCpuMsPerTransaction, ' ms')} per transaction`,
  ];
}

function describePhase(phase: PhaseResult): string[] {
  const { latencyMs: l, cpuMsPerOp: cpu, statements: s } = phase;
  const lines = [
    `${phase.phase} (${phase.mode})`,
    `  ${phase.okPerSecond}/s over ${phase.elapsedS} s; latency p50 ${l.p50}, p95 ${l.p95}, p99 ${l.p99}, max ${l.max} ms; errors ${phase.errors}` +
      (phase.errors > 0 ? ` ${JSON.stringify(phase.statuses)}` : ''),
  ];
  if (phase.serviceTimeMs) {
    const t = phase.serviceTimeMs;
    lines.push(`  from the actual send (hides queueing): p50 ${t.p50}, p99 ${t.p99} ms`);
  }
  if (phase.serviceLatency) {
    lines.push(
      `  inside the service (its payments_transfer_duration_seconds): ${phase.serviceLatency.within10msPercent}% of completed transfers within 10 ms`,
    );
  }
  if (phase.batchSize) {
    const b = phase.batchSize;
    lines.push(
      `  batch size (transfers per database call): mean ${b.mean}, p50 <= ${b.p50}, p99 <= ${b.p99} over ${b.batches} calls`,
    );
  }
  if (phase.serviceGc) {
    const { major, minor, incrementalMs } = phase.serviceGc;
    lines.push(
      `  service GC: ${major.collections} full collections (${major.pauseMs} ms paused, ${major.over10ms} over 10 ms), ` +
        `${minor.collections} scavenges (${minor.pauseMs} ms), incremental marking ${incrementalMs} ms`,
    );
  }
  if (phase.machineStalls) lines.push(`  machine: ${describeStalls(phase.machineStalls)}`);
  if (phase.writeback) lines.push(`  kernel writeback: ${describeWriteback(phase.writeback)}`);
  for (const [kind, k] of Object.entries(phase.byKind ?? {})) {
    lines.push(`  ${kind}: ${k.count} reads, p50 ${k.p50}, p95 ${k.p95}, p99 ${k.p99}, max ${k.max} ms`);
  }
  lines.push(
    `  CPU per op: service ${orNa(cpu.service, ' ms')}, PostgreSQL ${orNa(cpu.postgres, ' ms')}, load generator ${cpu.loadGenerator} ms` +
      ` (cores busy: service ${orNa(phase.cpuCoresBusy.service)}, PostgreSQL ${orNa(phase.cpuCoresBusy.postgres)})`,
    `  WAL per op ${phase.walBytesPerOp} B (${orNa(phase.walFullPageImagesPerOp)} full-page images); ` +
      `statements per op ${orNa(s.topLevelPerOp)} sent, ${orNa(s.allPerOp)} with those inside functions; ` +
      `${s.transactionsPerOp} commits, ${s.rowWritesPerOp} row writes; service RSS ${orNa(phase.serviceRssMiB === undefined ? undefined : Math.round(phase.serviceRssMiB), ' MiB')}`,
  );
  return lines;
}

function describeStalls(stalls: MachineStalls): string {
  const probe = stalls.elevated
    ? 'a probe thread at nice -20'
    : 'a probe thread at normal priority (no right to raise it)';
  return (
    `${stalls.over10ms} stalls of 10 ms or more, ${stalls.over5ms} of 5 ms or more (longest ${stalls.longestMs} ms, ` +
    `${stalls.stalledMs} ms in all), seen by ${probe}`
  );
}

function describeWriteback(writeback: Writeback): string {
  return (
    `dirty page cache peaked at ${writeback.peakDirtyMiB} MiB; ${writeback.bursts} bursts of 32 MiB or more written ` +
    `back at once (largest ${writeback.largestBurstMiB} MiB)`
  );
}

function describeTargets(summary: BenchSummary): string[] {
  const bound = summary.bound;
  const transfers = summary.phases.filter((p) => p.phase.startsWith('transfers'));
  const reads = summary.phases.filter((p) => p.phase.startsWith('history reads'));
  const [empty, large] = transfers;
  const lines = ['', 'against the targets'];
  if (!empty) return lines;
  const open = summary.options.rate !== undefined;
  if (!open) {
    lines.push(
      `  transfers/s      ${empty.okPerSecond}: ${mark(empty.okPerSecond >= TARGETS.transfersPerSecond)} >= ${TARGETS.transfersPerSecond}` +
        ` (spec: ${mark(empty.okPerSecond >= TARGETS.spec.transfersPerSecond)} >= ${TARGETS.spec.transfersPerSecond}, p95 < ${TARGETS.spec.p95Ms} ${mark(empty.latencyMs.p95 < TARGETS.spec.p95Ms)}, p99 < ${TARGETS.spec.p99Ms} ${mark(empty.latencyMs.p99 < TARGETS.spec.p99Ms)})`,
    );
    if (bound) {
      const ratio = Math.round((empty.okPerSecond / bound.tps) * 100) / 100;
      lines.push(
        `  service / bound  ${ratio} (${empty.okPerSecond} transfers/s vs pgbench ${bound.tps} TPC-B/s): ${mark(ratio >= TARGETS.ratioToBound)} >= ${TARGETS.ratioToBound}`,
      );
    }
  } else {
    const missed = empty.latencyMs.p99 > TARGETS.openLoopP99Ms;
    lines.push(
      `  open loop p99    ${empty.latencyMs.p99} ms at ${summary.options.rate}/s offered (${empty.okPerSecond}/s done): ${mark(!missed)} <= ${TARGETS.openLoopP99Ms} ms` +
        (bound?.atRate ? ` (pgbench TPC-B at the same rate: p99 ${bound.atRate.latencyMs.p99} ms)` : ''),
    );
    if (empty.serviceLatency) {
      lines.push(
        `                   inside the service ${empty.serviceLatency.within10msPercent}% of completed transfers within 10 ms (p99 <= 10 ms there needs 99%)`,
      );
    }
    const stalls = empty.machineStalls;
    if (missed && stalls && stalls.over10ms > 0) {
      lines.push(
        `                   the machine stopped ${stalls.over10ms} times for 10 ms or more during it (longest ${stalls.longestMs} ms): judge on a quiet machine`,
      );
    }
    const writeback = empty.writeback;
    if (missed && writeback && writeback.bursts > 0) {
      lines.push(
        `                   the kernel wrote ${writeback.bursts} bursts of dirty pages back during it (largest ${writeback.largestBurstMiB} MiB); a commit that comes during one waits for it`,
      );
    }
  }
  const pgPerTransfer = empty.cpuMsPerOp.postgres;
  // In open loop the service's commits are shared by few transfers, so it is held to pgbench at the same rate.
  const atRate = summary.options.rate !== undefined;
  const pgPerTpcb = atRate ? bound?.atRate?.postgresCpuMsPerTransaction : bound?.cpuMsPerTransaction.postgres;
  if (pgPerTransfer !== undefined && pgPerTpcb !== undefined) {
    const where = atRate ? ` at the same rate (${summary.options.rate}/s)` : '';
    lines.push(
      `  PostgreSQL CPU   ${pgPerTransfer} ms per transfer vs ${pgPerTpcb} ms per pgbench transaction${where}: ${mark(pgPerTransfer < pgPerTpcb)} below`,
    );
  }
  const rss = summary.serviceMemoryMiB;
  if (rss)
    lines.push(
      `  service RSS      ${rss.rss} MiB (peak ${rss.peak}): ${mark(rss.peak <= TARGETS.serviceRssMiB)} <= ${TARGETS.serviceRssMiB} MiB (NODE_OPTIONS ${summary.serviceNodeOptions})`,
    );
  if (large) {
    const loss = 1 - large.okPerSecond / empty.okPerSecond;
    lines.push(
      `  large database   transfers ${large.okPerSecond}/s vs ${empty.okPerSecond}/s empty (${Math.round(-loss * 1000) / 10}%): ${mark(loss <= TARGETS.largeThroughputLoss)} within ${TARGETS.largeThroughputLoss * 100}%`,
    );
  }
  if (reads.length > 0) {
    const described = reads
      .map((r) => `${r.latencyMs.p99} ms (${r.phase.replace('history reads, ', '')})`)
      .join(' vs ');
    const last = reads[reads.length - 1];
    lines.push(
      `  history reads    p99 ${described}: ${mark(last.latencyMs.p99 < TARGETS.largeReadsP99Ms)} < ${TARGETS.largeReadsP99Ms} ms`,
    );
  }
  return lines;
}

function describeWebhooks(summary: BenchSummary): string[] {
  const hooks = summary.webhooks;
  if (!hooks) return [];
  const verdict = hooks.received < hooks.expected ? 'MISSING some' : 'all delivered';
  return [
    `webhooks         ${hooks.received} of ${hooks.expected} events received (${verdict}), ${hooks.duplicates} duplicates, last ${hooks.drainMs} ms after the load`,
  ];
}
