import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import type { SecondBucket } from '../../scripts/bench/load';
import { renderReport } from '../../scripts/bench/report-html';

const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
/** Where the screenshots go, for a person to look at (bench-results/ is ignored by git). */
const SCREENSHOTS = join(REPO_ROOT, 'bench-results', 'report-screenshots');

/** Forty seconds of a plausible transfer phase: ~1,000/s, p99 creeping up, RSS levelling off. */
function seconds(): SecondBucket[] {
  return Array.from({ length: 40 }, (_, s) => ({
    ok: 950 + ((s * 37) % 100),
    errors: s === 20 ? 3 : 0,
    latenciesMs: Array.from({ length: 200 }, (_, i) => 5 + (i % 50) + (i > 196 ? 80 + s * 3 : 0)),
    rssMiB: Math.min(225, 120 + s * 5),
  }));
}

const summary = {
  options: { rate: undefined },
  phases: [
    { phase: 'bound (TPC-B)', okPerSecond: 1090, latencyMs: { p50: 20, p95: 40, p99: 60 } },
    { phase: 'transfers, empty database', okPerSecond: 1003, latencyMs: { p50: 30.6, p95: 50.1, p99: 64.3 } },
  ],
  serviceMemoryMiB: { rss: 220, peak: 237 },
  invariantViolations: [],
  filler: Array.from({ length: 200 }, (_, i) => ({ statement: `SELECT ${i}`, calls: i })),
};

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
        { title: 'transfers, empty database', seconds: phase, latenciesMs: phase.flatMap((s) => s.latenciesMs) },
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
      expect(await page.locator('#verdict h2').innerText()).toMatch(/^FAIL: 1 of 7 targets missed/);
      expect(await page.locator('#verdict td.fail').allInnerTexts()).toHaveLength(1);

      // Charts take the page's width, whatever it is (no fixed 720 px): all of it but the margins.
      const content = Math.min(width, 1200);
      expect(firstChart.width).toBeGreaterThan(content - 100);
      expect(firstChart.width).toBeLessThanOrEqual(content);

      // The bound on the throughput chart, the p99 target on the latency chart.
      const targets = await page.locator('svg line.target + text').allTextContents();
      expect(targets).toEqual(expect.arrayContaining(['bound 1090/s', 'p99 target 250 ms', 'target 300 MiB']));

      // The raw results are there but folded: closed, and not taking the page's height.
      const raw = page.locator('details');
      expect(await raw.getAttribute('open')).toBeNull();
      expect(await page.locator('details pre').isVisible()).toBe(false);
      await page.close();
    }, 60_000);
  }
});
