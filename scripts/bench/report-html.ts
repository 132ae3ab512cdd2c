import { summarise, type SecondBucket } from './load';
import type { BenchSummary, Check, PhaseResult } from './results';
import { describeBacklog, headline, SPEC } from './verdict';

/** What the report draws for one phase: its figures, its per-second buckets and every latency. */
export interface ChartedPhase {
  title: string;
  result: PhaseResult;
  seconds: SecondBucket[];
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

const LATENCY_TARGETS: TargetLine[] = [
  { name: `p95 target ${SPEC.p95Ms} ms`, value: SPEC.p95Ms },
  { name: `p99 target ${SPEC.p99Ms} ms`, value: SPEC.p99Ms },
];

/** A self-contained HTML page (inline SVG, no scripts): the verdict first, then charts per phase, raw JSON folded away. */
export function renderReport(title: string, summary: BenchSummary, phases: ChartedPhase[]): string {
  const sections = phases.map((phase) => {
    const perSecond = phase.seconds.map((s) => summarise(s.latenciesMs));
    const throughput = (['ok', 'errors'] as const).map((name) => ({ name, values: phase.seconds.map((s) => s[name]) }));
    const latency = (['p50', 'p95', 'p99'] as const).map((p) => ({
      name: p,
      values: perSecond.map((l) => finite(l[p])),
    }));
    // Only the open loop's latency is judged: the closed loop's is its clients over its rate.
    const judged = phase.result.workload === 'transfers' && phase.result.loop === 'open';
    const backlog = phase.result.webhookBacklog ? `<p>Webhooks: ${escape(describeBacklog(phase.result))}</p>` : '';
    return `<section><h2>${escape(phase.title)}</h2>${backlog}
${lineChart('Throughput (completed per second)', throughput, throughputLines(phase.result, summary))}
${lineChart('Latency per second (ms)', latency, judged ? LATENCY_TARGETS : [])}
</section>`;
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
${verdict(summary.checks)}
${sections.join('\n')}
<details><summary>Raw results (JSON)</summary><pre>${escape(JSON.stringify(summary, null, 2))}</pre></details>
</body></html>
`;
}

/** The closed loop's throughput beside the in-run bound; the open loop's beside the rate offered. */
function throughputLines(phase: PhaseResult, summary: BenchSummary): TargetLine[] {
  if (phase.workload !== 'transfers') return [];
  if (phase.loop === 'open') return [{ name: `offered ${phase.offeredPerSecond}/s`, value: phase.offeredPerSecond! }];
  return summary.bound ? [{ name: `bound ${summary.bound.tps}/s`, value: summary.bound.tps }] : [];
}

function verdict(checks: Check[]): string {
  const passed = checks.every((c) => c.pass);
  const [word, rest] = headline(checks).split(/:(.*)/s);
  const rows = checks.map(
    (c) =>
      `<tr><td class="${c.pass ? 'pass' : 'fail'}">${c.pass ? '✓ pass' : '✗ fail'}</td><td>${escape(c.what)}</td><td>${escape(c.measured)}</td><td>${escape(c.target)}</td></tr>`,
  );
  return `<section id="verdict"><h2><span class="${passed ? 'pass' : 'fail'}">${word}</span>:${escape(rest)}</h2>
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
