import type { PhaseResult } from '../bench/results';

/** Issue 41: on the large database transfers keep this share of the empty one's rate, and reads this p99 ratio. */
export const LARGE_DATABASE = { minTransferShare: 0.85, maxReadP99Ratio: 2 };

/**
 * With --seed-large: the closed-loop transfer rate and each history read's p99, large against
 * empty, each with its target. Shown beside the verdict, not judged in it: a machine busy enough
 * to move one phase moves the ratio.
 */
export function largeAgainstEmpty(phases: PhaseResult[]): string[] {
  const closed = (workload: PhaseResult['workload'], database: PhaseResult['database']) =>
    phases.find((p) => p.workload === workload && p.loop === 'closed' && p.database === database);
  const lines: string[] = [];
  const [empty, large] = [closed('transfers', 'empty'), closed('transfers', 'large')];
  if (empty && large) {
    const share = ratio(large.okPerSecond, empty.okPerSecond);
    const verdict = share >= LARGE_DATABASE.minTransferShare ? 'within' : 'NOT within';
    lines.push(
      `transfers/s ${share} of the empty database's (${large.okPerSecond} / ${empty.okPerSecond}): ${verdict} 15%`,
    );
  }
  const [emptyReads, largeReads] = [closed('history reads', 'empty'), closed('history reads', 'large')];
  for (const [kind, before] of Object.entries(emptyReads?.byKind ?? {})) {
    const after = largeReads?.byKind?.[kind];
    if (!after) continue;
    const times = ratio(after.p99, before.p99);
    const verdict = times <= LARGE_DATABASE.maxReadP99Ratio ? 'within' : 'NOT within';
    lines.push(`${kind} p99 ${times}x the empty database's (${after.p99} / ${before.p99} ms): ${verdict} 2x`);
  }
  return lines;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
