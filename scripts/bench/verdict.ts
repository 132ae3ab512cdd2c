import type { BenchSummary, Check, PhaseResult } from './results';

/** The spec's objectives per node (Targets): its latencies hold at its rate, 500 transfers/s. */
export const SPEC = { transfersPerSecond: 500, p95Ms: 100, p99Ms: 250 };
/** Transfers per second against pgbench's TPC-B transactions per second in the same run. */
export const MIN_RATIO_TO_BOUND = 0.5;
/** Webhooks keep pace at a steady rate (issue 38: 11): no pending delivery gets this old during the load. */
export const MAX_OLDEST_PENDING_WEBHOOK_S = 10;

/**
 * The run against the spec's targets and the in-run bound, and whether nothing went wrong.
 * Only ratios and the spec's own numbers: no absolute rate that depends on the machine. The
 * closed loop shows capacity (its latency is its clients over its rate, so it is not judged);
 * the open loop shows latency at the offered rate, counted from each intended send time.
 */
export function judge(run: Omit<BenchSummary, 'checks'>): Check[] {
  const checks = run.phases.filter((p) => p.workload === 'transfers').flatMap((p) => transferChecks(p, run));
  const check = (what: string, measured: string, target: string, pass: boolean) =>
    checks.push({ what, measured, target, pass });
  const failed = run.phases.reduce((sum, phase) => sum + phase.errors, 0);
  check('failed requests', String(failed), '0', failed === 0);
  const broken = run.invariantViolations.length;
  check('ledger invariants', broken === 0 ? 'intact' : `${broken} broken`, 'intact', broken === 0);
  const drained = run.outboxDrainS !== undefined;
  check('outbox', drained ? `drained in ${run.outboxDrainS} s` : 'not drained in 60 s', 'drained', drained);
  const hooks = run.webhooks;
  if (hooks) {
    const all = hooks.received >= hooks.expected;
    check('webhook events delivered', `${hooks.received} of ${hooks.expected}`, 'all', all);
  }
  return checks;
}

function transferChecks(phase: PhaseResult, run: Omit<BenchSummary, 'checks'>): Check[] {
  const where = `${phase.database} database`;
  if (phase.loop === 'open') {
    const at = `at ${phase.offeredPerSecond}/s offered, ${where}`;
    const { p95, p99 } = phase.latencyMs;
    const checks = [
      { what: `p95 ${at}`, measured: `${p95} ms`, target: `< ${SPEC.p95Ms} ms`, pass: p95 < SPEC.p95Ms },
      { what: `p99 ${at}`, measured: `${p99} ms`, target: `< ${SPEC.p99Ms} ms`, pass: p99 < SPEC.p99Ms },
    ];
    // Only at a steady offered rate: the closed loop overloads on purpose, its backlog is reported.
    return run.webhooks ? [...checks, backlogCheck(phase, at)] : checks;
  }
  const rate = phase.okPerSecond;
  const checks = [
    {
      what: `transfers/s, closed loop, ${where}`,
      measured: `${rate}/s`,
      target: `>= ${SPEC.transfersPerSecond}/s`,
      pass: rate >= SPEC.transfersPerSecond,
    },
  ];
  if (run.bound) {
    const ratio = ratioToBound(rate, run.bound.tps);
    checks.push({
      what: `ratio to the bound, ${where}`,
      measured: `${ratio} (${rate} / ${run.bound.tps} TPC-B/s)`,
      target: `>= ${MIN_RATIO_TO_BOUND}`,
      pass: ratio >= MIN_RATIO_TO_BOUND,
    });
  }
  return checks;
}

function backlogCheck({ webhookBacklog: backlog }: PhaseResult, at: string): Check {
  const oldest = backlog?.maxOldestPendingS ?? Infinity;
  const measured = backlog ? `max ${oldest} s, ${backlog.endOldestPendingS} s at the end` : 'not sampled';
  const target = `< ${MAX_OLDEST_PENDING_WEBHOOK_S} s`;
  return { what: `oldest pending webhook ${at}`, measured, target, pass: oldest < MAX_OLDEST_PENDING_WEBHOOK_S };
}

/** The backlog line of a phase with --webhook, for the console and the report. */
export const describeBacklog = ({ webhookBacklog: b, okPerSecond }: PhaseResult) =>
  `oldest pending max ${b?.maxOldestPendingS} s, ${b?.endOldestPendingS} s at the end; ` +
  `${b?.deliveredPerSecond} deliveries/s for ${okPerSecond} transfers/s`;

export const ratioToBound = (transfersPerSecond: number, tps: number) =>
  Math.round((transfersPerSecond / tps) * 100) / 100;

/** 0 when every check passes, 1 when one fails (2, bad usage, is decided before a run). */
export const exitStatus = (checks: Check[]) => (checks.every((c) => c.pass) ? 0 : 1);

/** The one-line verdict, as the console and the report open or close with it. */
export function headline(checks: Check[]): string {
  const failed = checks.filter((c) => !c.pass).length;
  return failed === 0 ? `PASS: all ${checks.length} checks pass` : `FAIL: ${failed} of ${checks.length} checks failed`;
}
