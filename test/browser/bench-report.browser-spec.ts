import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import type { SecondBucket } from '../../scripts/bench/load';
import { parseCommandLine } from '../../scripts/bench/options';
import { renderReport } from '../../scripts/bench/report-html';
import type { BenchSummary, PhaseResult } from '../../scripts/bench/results';
import { judge } from '../../scripts/bench/verdict';

const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
/** Where the screenshots go, for a person to look at (bench-results/ is ignored by git). */
const SCREENSHOTS = join(REPO_ROOT, 'bench-results', 'report-screenshots');

/** Forty seconds of a plausible transfer phase: ~1,000/s, p99 creeping up. */
function seconds(): SecondBucket[] {
  return Array.from({ length: 40 }, (_, s) => ({
    ok: 950 + ((s * 37) % 100),
    errors: s === 20 ? 3 : 0,
    latenciesMs: Array.from({ length: 200 }, (_, i) => 5 + (i % 50) + (i > 196 ? 80 + s * 3 : 0)),
  }));
}

const transfers: PhaseResult = {
  phase: 'transfers, empty database',
  mode: 'closed loop, 32 clients',
  workload: 'transfers',
  loop: 'closed',
  database: 'empty',
  elapsedS: 40,
  operations: 40_000,
  okPerSecond: 1003,
  errors: 3,
  statuses: { '201': 39_997, '500': 3 },
  latencyMs: { p50: 30.6, p95: 50.1, p99: 64.3, max: 200 },
};
const openLoop: PhaseResult = {
  ...transfers,
  mode: 'open loop at 500/s',
  loop: 'open',
  offeredPerSecond: 500,
  okPerSecond: 500,
  errors: 0,
};

/** A run whose three failed requests are the one check it fails. */
const results: Omit<BenchSummary, 'checks'> = {
  date: '2026-11-27',
  mode: 'light',
  options: (parseCommandLine([]) as { options: BenchSummary['options'] }).options,
  phases: [transfers, openLoop],
  bound: { tool: 'pgbench (PostgreSQL) 15', durationS: 10, transactions: 10_900, tps: 1090 },
  outboxDrainS: 0.3,
  serviceMemoryMiB: { rss: 220, peak: 237 },
  serviceNodeOptions: '',
  loadAverage1m: 1,
  invariantViolations: [],
};
const summary: BenchSummary = { ...results, checks: judge(results) };

describe('the benchmark report in a real browser', () => {
  let browser: Browser;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('Chromium not found: apt-get install chromium, or set CHROMIUM_PATH');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    dir = mkdtempSync(join(tmpdir(), 'payments-report-'));
    file = join(dir, 'report.html');
    const phase = seconds();
    writeFileSync(
      file,
      renderReport('Payment service benchmark (browser test)', summary, [
        { title: 'transfers, empty database (closed loop)', result: transfers, seconds: phase },
        { title: 'transfers, empty database (open loop)', result: openLoop, seconds: phase },
      ]),
    );
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const width of [1280, 640]) {
    it(`at ${width} px: the verdict on top, charts as wide as the page with target lines, the JSON folded`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`file://${file}`);
      await page.screenshot({ path: join(SCREENSHOTS, `report-${width}.png`), fullPage: true });

      // Pass/fail is the first thing under the title, above every chart.
      const verdict = (await page.locator('#verdict').boundingBox())!;
      const firstChart = (await page.locator('svg').first().boundingBox())!;
      expect(verdict.y).toBeLessThan(firstChart.y);
      expect(verdict.y).toBeLessThan(900);
      expect(await page.locator('#verdict h2').innerText()).toMatch(/^FAIL: 1 of 7 checks failed/);
      expect(await page.locator('#verdict td.fail').allInnerTexts()).toHaveLength(1);

      // Charts take the page's width, whatever it is (no fixed 720 px): all of it but the margins.
      const content = Math.min(width, 1200);
      expect(firstChart.width).toBeGreaterThan(content - 100);
      expect(firstChart.width).toBeLessThanOrEqual(content);

      // The bound and the offered rate on the throughput charts, the targets on the open loop's latency.
      const targets = await page.locator('svg line.target + text').allTextContents();
      expect(targets).toEqual(['bound 1090/s', 'offered 500/s', 'p95 target 100 ms', 'p99 target 250 ms']);

      // The raw results are there but folded: closed, and not taking the page's height.
      const raw = page.locator('details');
      expect(await raw.getAttribute('open')).toBeNull();
      expect(await page.locator('details pre').isVisible()).toBe(false);
      await page.close();
    }, 60_000);
  }
});
