import { summarise, type SecondBucket } from './load';

/** What the report draws for one phase: its per-second buckets and every latency. */
export interface ChartedPhase {
  title: string;
  seconds: SecondBucket[];
  latenciesMs: number[];
}

const WIDTH = 720;
const HEIGHT = 220;
const MARGIN = { left: 56, right: 16, top: 28, bottom: 32 };
const COLOURS = ['#1f77b4', '#ff7f0e', '#d62728', '#2ca02c'];

interface Series {
  name: string;
  values: (number | undefined)[];
}

/** A self-contained HTML page (inline SVG, no scripts) with the summary and one set of charts per phase. */
export function renderReport(title: string, summary: unknown, phases: ChartedPhase[]): string {
  const sections = phases.map((phase) => {
    const perSecond = phase.seconds.map((s) => summarise(s.latenciesMs));
    const rss = phase.seconds.some((s) => s.rssMiB !== undefined)
      ? lineChart('Service RSS (MiB)', [{ name: 'RSS', values: phase.seconds.map((s) => s.rssMiB) }])
      : '';
    return `<section><h2>${escape(phase.title)}</h2>
${lineChart('Throughput (completed per second)', [
  { name: 'ok', values: phase.seconds.map((s) => s.ok) },
  { name: 'errors', values: phase.seconds.map((s) => s.errors) },
])}
${lineChart('Latency per second (ms)', [
  { name: 'p50', values: perSecond.map((l) => finite(l.p50)) },
  { name: 'p95', values: perSecond.map((l) => finite(l.p95)) },
  { name: 'p99', values: perSecond.map((l) => finite(l.p99)) },
])}
${histogram(phase.latenciesMs)}
${rss}</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:24px;max-width:760px}svg{display:block;margin:8px 0 20px}
pre{background:#f6f6f6;padding:12px;overflow:auto;font-size:12px}text{font:11px system-ui,sans-serif}</style></head>
<body><h1>${escape(title)}</h1>
${sections.join('\n')}
<h2>Results</h2><pre>${escape(JSON.stringify(summary, null, 2))}</pre>
</body></html>
`;
}

export function lineChart(title: string, series: Series[]): string {
  const length = Math.max(1, ...series.map((s) => s.values.length));
  const yMax = niceCeiling(Math.max(1, ...series.flatMap((s) => s.values.filter(isNumber))));
  const x = (index: number) => MARGIN.left + (index / Math.max(1, length - 1)) * plotWidth();
  const y = (value: number) => MARGIN.top + plotHeight() - (value / yMax) * plotHeight();
  const lines = series.map((s, n) => {
    const points = s.values
      .map((value, index) => (isNumber(value) ? `${x(index).toFixed(1)},${y(value).toFixed(1)}` : undefined))
      .filter(Boolean)
      .join(' ');
    return `<polyline fill="none" stroke="${COLOURS[n % COLOURS.length]}" stroke-width="1.5" points="${points}"/>`;
  });
  const xLabels = [0, Math.floor((length - 1) / 2), length - 1]
    .filter((v, i, all) => all.indexOf(v) === i)
    .map((index) => `<text x="${x(index)}" y="${HEIGHT - 12}" text-anchor="middle">${index + 1} s</text>`);
  return frame(
    title,
    series.map((s) => s.name),
    [...lines, ...yAxis(yMax, y), ...xLabels],
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
  return frame('Latency histogram (requests per bucket, log scale)', [], [...bars, ...yAxis(yMax, y), ...decades]);
}

function frame(title: string, legend: string[], body: string[]): string {
  const keys = legend.map(
    (name, n) =>
      `<text x="${WIDTH - MARGIN.right - (legend.length - n) * 70}" y="16" fill="${COLOURS[n % COLOURS.length]}">■ ${escape(name)}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escape(title)}">
<text x="${MARGIN.left}" y="16" font-weight="bold">${escape(title)}</text>${keys.join('')}
<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth()}" height="${plotHeight()}" fill="none" stroke="#ccc"/>
${body.join('\n')}
</svg>`;
}

function yAxis(yMax: number, y: (value: number) => number): string[] {
  return [0, yMax / 2, yMax].map(
    (value) => `<text x="${MARGIN.left - 6}" y="${y(value) + 4}" text-anchor="end">${formatNumber(value)}</text>`,
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
