import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'pg';
import { REPO_ROOT } from '../lib/service-process';
import { round } from './load';
import type { BenchOptions } from './options';
import type { BenchSummary } from './results';
import { type ChartedPhase, renderReport } from './report-html';

/** Seconds from the end of the load until every outbox event is published (undefined after 60 s). */
export async function waitForOutboxDrain(db: Client): Promise<number | undefined> {
  const started = performance.now();
  while (performance.now() - started < 60_000) {
    const result = await db.query('SELECT pending AS n FROM outbox_backlog()');
    if (result.rows[0].n === 0) return round((performance.now() - started) / 1000);
    await sleep(100);
  }
  return undefined;
}

/** results.json and report.html in a folder of their own under --out. */
export function writeResults(options: BenchOptions, runId: string, summary: BenchSummary, charts: ChartedPhase[]) {
  const root = isAbsolute(options.outDir) ? options.outDir : join(REPO_ROOT, options.outDir);
  const dir = join(root, `${new Date().toISOString().replace(/[:.]/g, '-')}-${runId}`);
  mkdirSync(dir, { recursive: true });
  const files = { json: join(dir, 'results.json'), html: join(dir, 'report.html') };
  writeFileSync(files.json, JSON.stringify(summary, null, 2) + '\n');
  writeFileSync(files.html, renderReport(`Payment service benchmark ${runId}`, summary, charts));
  return files;
}
