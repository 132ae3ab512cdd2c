import { summarise, type SecondBucket } from './load';
import { type BenchSummary, TARGETS } from './results';

/** What the report draws for one phase: its per-second buckets and every latency. */
export interface ChartedPhase {
  title: string;
  seconds: SecondBucket[];
  latenciesMs: number[];
}

// The drawing's own coordinates: the SVGs scale to the page's width (viewBox), text stays legible.
const WIDTH = 960;
const HEIGHT = 260;
const MARGIN = { left: 64, right: 20, top: 30, bottom: 34 };
const COLOURS = ['#1f77b4', '#ff7f0e', '#d62728', '#2ca02c'];
const TARGET_COLOUR = '#6a3d9a';
const Y_TICKS = 5;
const X_TICKS = 10;

interface Series {
  name: string;
  values: (number | undefined)[];
}

/** A horizontal reference line: the in-run bound, a latency target. */
export interface TargetLine {
  name: string;
  value: number;
}

interface Check {
  what: string;
  measured: string;
  target: string;
  pass: boolean;
}

/** A self-contained HTML page (inline SVG, no scripts): pass/fail first, then charts per phase, raw JSON folded away. */
export function renderReport(title: string, summary: unknown, phases: ChartedPhase[]): string {
  const results = summary as Partial<BenchSummary>;
  const checks = targetChecks(results);
  const boundPerSecond = results.phases?.find((p) => p.phase.startsWith('bound'))?.okPerSecond;
  const p99Target = results.options?.rate !== undefined ? TARGETS.openLoopP99Ms : TARGETS.spec.p99Ms;
  const sections = phases.map((phase) => {
    const perSecond = phase.seconds.map((s) => summarise(s.latenciesMs));
    const isTransfers = phase.title.startsWith('transfers');
    const rss = phase.seconds.some((s) => s.rssMiB !== undefined)
      ? lineChart(
          'Service RSS (MiB)',
          [{ name: 'RSS', values: phase.seconds.map((s) => s.rssMiB) }],
          [{ name: `target ${TARGETS.serviceRssMiB} MiB`, value: TARGETS.serviceRssMiB }],
        )
      : '';
    const bound = isTransfers && boundPerSecond ? [{ name: `bound ${boundPerSecond}/s`, value: boundPerSecond }] : [];
    return `<section><h2>${escape(phase.title)}</h2>
${lineChart(
  'Throughput (completed per second)',
  [
    { name: 'ok', values: phase.seconds.map((s) => s.ok) },
    { name: 'errors', values: phase.seconds.map((s) => s.errors) },
  ],
  bound,
)}
${lineChart(
  'Latency per second (ms)',
  [
    { name: 'p50', values: perSecond.map((l) => finite(l.p50)) },
    { name: 'p95', values: perSecond.map((l) => finite(l.p95)) },
    { name: 'p99', values: perSecond.map((l) => finite(l.p99)) },
  ],
  isTransfers ? [{ name: `p99 target ${p99Target} ms`, value: p99Target }] : [],
)}
${histogram(phase.latenciesMs)}
${rss}</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:24px auto;max-width:1200px;padding:0 16px}
svg{display:block;width:100%;height:auto;margin:8px 0 20px}text{font:12px system-ui,sans-serif}
table{border-collapse:collapse;margin:8px 0 16px}td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}
.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}
pre{background:#f6f6f6;padding:12px;overflow:auto;font-size:12px}details{margin:16px 0}</style></head>
<body><h1>${escape(title)}</h1>
${verdict(checks)}
${sections.join('\n')}
<details><summary>Raw results (JSON)</summary><pre>${escape(JSON.stringify(summary, null, 2))}</pre></details>
</body></html>
`;
}

/** The run against the targets, as the terminal summary checks them. */
function targetChecks(results: Partial<BenchSummary>): Check[] {
  const checks: Check[] = [];
  const add = (what: string, measured: string, target: string, pass: boolean) =>
    checks.push({ what, measured, target, pass });
  const phases = results.phases ?? [];
  const bound = phases.find((p) => p.phase.startsWith('bound'));
  const [empty, large] = phases.filter((p) => p.phase.startsWith('transfers'));
  const reads = phases.filter((p) => p.phase.startsWith('history reads'));
  if (empty && results.options?.rate === undefined) {
    add(
      'transfers/s',
      `${empty.okPerSecond}`,
      `>= ${TARGETS.transfersPerSecond}`,
      empty.okPerSecond >= TARGETS.transfersPerSecond,
    );
    add(
      'transfers/s (spec)',
      `${empty.okPerSecond}`,
      `>= ${TARGETS.spec.transfersPerSecond}`,
      empty.okPerSecond >= TARGETS.spec.transfersPerSecond,
    );
    add(
      'p95 (spec)',
      `${empty.latencyMs.p95} ms`,
      `< ${TARGETS.spec.p95Ms} ms`,
      empty.latencyMs.p95 < TARGETS.spec.p95Ms,
    );
    add(
      'p99 (spec)',
      `${empty.latencyMs.p99} ms`,
      `< ${TARGETS.spec.p99Ms} ms`,
      empty.latencyMs.p99 < TARGETS.spec.p99Ms,
    );
    if (bound?.okPerSecond) {
      const ratio = Math.round((empty.okPerSecond / bound.okPerSecond) * 100) / 100;
      add(
        'ratio to the bound',
        `${ratio} (${bound.okPerSecond} TPC-B/s)`,
        `>= ${TARGETS.ratioToBound}`,
        ratio >= TARGETS.ratioToBound,
      );
    }
  } else if (empty) {
    add(
      'open-loop p99',
      `${empty.latencyMs.p99} ms`,
      `<= ${TARGETS.openLoopP99Ms} ms`,
      empty.latencyMs.p99 <= TARGETS.openLoopP99Ms,
    );
  }
  const rss = results.serviceMemoryMiB;
  if (rss)
    add('service peak RSS', `${rss.peak} MiB`, `<= ${TARGETS.serviceRssMiB} MiB`, rss.peak <= TARGETS.serviceRssMiB);
  if (empty && large) {
    const loss = 1 - large.okPerSecond / empty.okPerSecond;
    add(
      'large database',
      `${Math.round(-loss * 1000) / 10}%`,
      `within ${TARGETS.largeThroughputLoss * 100}%`,
      loss <= TARGETS.largeThroughputLoss,
    );
  }
  const lastReads = reads.at(-1);
  if (lastReads)
    add(
      'history reads p99',
      `${lastReads.latencyMs.p99} ms`,
      `< ${TARGETS.largeReadsP99Ms} ms`,
      lastReads.latencyMs.p99 < TARGETS.largeReadsP99Ms,
    );
  if (results.invariantViolations) {
    const broken = results.invariantViolations.length;
    add('ledger invariants', broken === 0 ? 'intact' : `${broken} broken`, 'intact', broken === 0);
  }
  return checks;
}

function verdict(checks: Check[]): string {
  if (checks.length === 0) return '<p>No targets to check in these results.</p>';
  const failed = checks.filter((c) => !c.pass).length;
  const headline =
    failed === 0
      ? '<span class="pass">PASS</span>: every target met'
      : `<span class="fail">FAIL</span>: ${failed} of ${checks.length} targets missed`;
  const rows = checks.map(
    (c) =>
      `<tr><td class="${c.pass ? 'pass' : 'fail'}">${c.pass ? '✓ pass' : '✗ fail'}</td><td>${escape(c.what)}</td><td>${escape(c.measured)}</td><td>${escape(c.target)}</td></tr>`,
  );
  return `<section id="verdict"><h2>${headline}</h2>
<table><thead><tr><th></th><th>Check</th><th>Measured</th><th>Target</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></section>`;
}

export function lineChart(title: string, series: Series[], targets: TargetLine[] = []): string {
  const length = Math.max(1, ...series.map((s) => s.values.length));
  const highest = Math.max(1, ...series.flatMap((s) => s.values.filter(isNumber)), ...targets.map((t) => t.value));
  const yMax = niceCeiling(highest);
  const x = (index: number) => MARGIN.left + (index / Math.max(1, length - 1)) * plotWidth();
  const y = (value: number) => MARGIN.top + plotHeight() - (value / yMax) * plotHeight();
  const lines = series.map((s, n) => {
    const points = s.values
      .map((value, index) => (isNumber(value) ? `${x(index).toFixed(1)},${y(value).toFixed(1)}` : undefined))
      .filter(Boolean)
      .join(' ');
    return `<polyline fill="none" stroke="${COLOURS[n % COLOURS.length]}" stroke-width="1.5" points="${points}"/>`;
  });
  const references = targets.map(
    (t) =>
      `<line class="target" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(t.value).toFixed(1)}" y2="${y(t.value).toFixed(1)}" stroke="${TARGET_COLOUR}" stroke-dasharray="6 4"/>` +
      `<text x="${WIDTH - MARGIN.right - 4}" y="${(y(t.value) - 4).toFixed(1)}" text-anchor="end" fill="${TARGET_COLOUR}">${escape(t.name)}</text>`,
  );
  const step = Math.max(1, Math.ceil(length / X_TICKS));
  const xLabels = Array.from({ length }, (_, index) => index)
    .filter((index) => index % step === 0 || index === length - 1)
    .map((index) => `<text x="${x(index)}" y="${HEIGHT - 12}" text-anchor="middle">${index + 1} s</text>`);
  return frame(
    title,
    series.map((s) => s.name),
    [...gridLines(yMax, y), ...lines, ...references, ...xLabels],
  );
}

/** Latency histogram on log-spaced buckets (ten per decade, 0.1 ms to 10 s). */
export function histogram(latenciesMs: number[]): string {
  const perDecade = 10;
  const low = -1;
  const buckets = new Array<number>(perDecade * 5).fill(0);
  for (const latency of latenciesMs) {
    const index = Math.floor((Math.log10(Math.max(latency, 0.1)) - low) * perDecade);
    buckets[Math.min(buckets.length - 1, Math.max(0, index))] += 1;
  }
  const yMax = niceCeiling(Math.max(1, ...buckets));
  const barWidth = plotWidth() / buckets.length;
  const y = (value: number) => MARGIN.top + plotHeight() - (value / yMax) * plotHeight();
  const bars = buckets.map(
    (count, index) =>
      `<rect x="${(MARGIN.left + index * barWidth).toFixed(1)}" y="${y(count).toFixed(1)}" width="${(barWidth - 1).toFixed(1)}" height="${(MARGIN.top + plotHeight() - y(count)).toFixed(1)}" fill="${COLOURS[0]}"><title>${bucketLabel(index, perDecade, low)}: ${count}</title></rect>`,
  );
  const decades = ['0.1 ms', '1 ms', '10 ms', '100 ms', '1 s', '10 s'].map(
    (label, decade) =>
      `<text x="${MARGIN.left + decade * perDecade * barWidth}" y="${HEIGHT - 12}" text-anchor="middle">${label}</text>`,
  );
  return frame('Latency histogram (requests per bucket, log scale)', [], [...gridLines(yMax, y), ...bars, ...decades]);
}

function frame(title: string, legend: string[], body: string[]): string {
  const keys = legend.map(
    (name, n) =>
      `<text x="${WIDTH - MARGIN.right - (legend.length - n) * 70}" y="16" fill="${COLOURS[n % COLOURS.length]}">■ ${escape(name)}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="xMidYMid meet" role="img" aria-label="${escape(title)}">
<text x="${MARGIN.left}" y="16" font-weight="bold">${escape(title)}</text>${keys.join('')}
<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth()}" height="${plotHeight()}" fill="none" stroke="#ccc"/>
${body.join('\n')}
</svg>`;
}

/** Y ticks with light grid lines at 0, 1/5 ... 5/5 of a round maximum. */
function gridLines(yMax: number, y: (value: number) => number): string[] {
  return Array.from({ length: Y_TICKS + 1 }, (_, i) => (yMax * i) / Y_TICKS).map(
    (value) =>
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#eee"/>` +
      `<text x="${MARGIN.left - 6}" y="${y(value) + 4}" text-anchor="end">${formatNumber(value)}</text>`,
  );
}

function bucketLabel(index: number, perDecade: number, low: number): string {
  const from = 10 ** (low + index / perDecade);
  const to = 10 ** (low + (index + 1) / perDecade);
  return `${formatNumber(from)}–${formatNumber(to)} ms`;
}

const plotWidth = () => WIDTH - MARGIN.left - MARGIN.right;
const plotHeight = () => HEIGHT - MARGIN.top - MARGIN.bottom;
const isNumber = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value);
const finite = (value: number) => (Number.isFinite(value) ? value : undefined);

function niceCeiling(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * magnitude).find((candidate) => candidate >= value) ?? value;
}

function formatNumber(value: number): string {
  if (value >= 100) return String(Math.round(value));
  return String(Math.round(value * 100) / 100);
}

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
