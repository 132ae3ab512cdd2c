import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import { LeanHttpClient } from '../../scripts/bench/lean-http';
import { Recorder, runClosedLoop, runOpenLoop } from '../../scripts/bench/load';
import { HELP, parseCommandLine } from '../../scripts/bench/options';
import { findPgbench, parsePgbenchOutput, PGBENCH_MISSING } from '../../scripts/bench/pgbench';
import { printSummary } from '../../scripts/bench/print';
import { renderReport } from '../../scripts/bench/report-html';
import type { BenchSummary, PhaseResult } from '../../scripts/bench/results';
import { exitStatus, judge } from '../../scripts/bench/verdict';
import { readWebhookMetrics } from '../../scripts/lib/webhook-metrics';
import { loadConfig } from '../../src/config/app-config';
import { makeTempDir, removeTempDir } from '../support/temp-dir';

describe('the benchmark command line', () => {
  it('answers --help, and reads options with their defaults: both loops, the open one at the spec’s 500/s', () => {
    expect(parseCommandLine(['--help'])).toEqual({ kind: 'help' });
    expect(parseCommandLine([])).toMatchObject({
      kind: 'run',
      options: { loop: 'both', rate: 500, concurrency: 32, durationS: 30, boundDurationS: 10, seedLarge: false },
    });
    const parsed = parseCommandLine(['--duration', '5', '--loop', 'open', '--rate', '1000', '--seed-large']);
    expect(parsed).toMatchObject({
      kind: 'run',
      options: { durationS: 5, loop: 'open', rate: 1000, seedLarge: true, reads: true },
    });
    const external = parseCommandLine(['--database-url', 'postgres://u:p@db/x', '--kafka', '--webhook']);
    expect(external).toMatchObject({ options: { databaseUrl: 'postgres://u:p@db/x', kafka: true, webhook: true } });
    expect(parseCommandLine([])).toMatchObject({ options: { holds: false } });
    expect(parseCommandLine(['--holds'])).toMatchObject({ options: { holds: true } });
    expect(HELP).toMatch(/^ {2}--holds /m);
  });

  it('rotates the senders over enough users by default that none reaches the per-user limit at 4,000 transfers/s', () => {
    const parsed = parseCommandLine([]) as { options: { users: number } };
    const dataDir = makeTempDir('bench-config');
    try {
      const limit = loadConfig({
        DATA_DIR: dataDir,
        JWT_SECRET: 'a-test-secret-that-is-32-bytes-long!!',
      }).rateLimitPerSecond;
      expect(4000 / parsed.options.users).toBeLessThanOrEqual(limit / 2);
    } finally {
      removeTempDir(dataDir);
    }
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--driver-tpcb', '5'], "Unknown option '--driver-tpcb'"],
    [['--loop', 'sideways'], '--loop must be one of both, closed, open, got "sideways"'],
    [['--rate', 'fast'], '--rate must be a number from 1 to 1000000, got "fast"'],
    [['--concurrency', '2.5'], '--concurrency must be a whole number, got "2.5"'],
    [['--hot', '50', '--users', '10'], '--hot must be a number from 1 to 10, got "50"'],
    [['extra'], "Unexpected argument 'extra'"],
  ])('rejects %j with a message, not a stack trace', (argv, message) => {
    const parsed = parseCommandLine(argv);
    expect(parsed.kind).toBe('error');
    expect((parsed as { message: string }).message).toContain(message);
  });
});

describe('the bound', () => {
  it('finds no pgbench where there is none, and then says how to install it', () => {
    expect(findPgbench({ PATH: '/nonexistent', PGBENCH: '/nonexistent/pgbench' })).toBeUndefined();
    expect(PGBENCH_MISSING).toContain('apt-get install postgresql-client');
    expect(PGBENCH_MISSING).toContain('--bound-duration 0');
  });

  it("reads transactions, transactions per second and the mean latency from pgbench's report", () => {
    const report = [
      'transaction type: <builtin: TPC-B (sort of)>',
      'number of transactions actually processed: 50983',
      'latency average = 3.131 ms',
      'tps = 5098.338461 (without initial connection time)',
    ].join('\n');
    expect(parsePgbenchOutput(report)).toEqual({ transactions: 50983, tps: 5098, latencyAvgMs: 3.131 });
    expect(() => parsePgbenchOutput('pgbench: error: connection refused')).toThrow('pgbench said');
  });
});

describe('the loops', () => {
  // Each operation takes 40 ms: 16 closed-loop callers make about 16 × 0.4 s / 40 ms = 160 calls
  // in 0.4 s, an open loop at 100/s exactly 40, however long each takes.
  const slow = async () => {
    await new Promise((resolve) => setTimeout(resolve, 40));
    return { outcome: '201', ok: true };
  };

  it('open: offers the rate whatever the answers take', async () => {
    expect((await runOpenLoop(new Recorder('transfers', 'open'), 100, 0.4, slow)).operations).toBe(40);
  });

  it('closed: each client sends its next request when its last one answers', async () => {
    const load = await runClosedLoop(new Recorder('transfers', 'closed'), 16, 0.4, slow);
    expect(load.operations).toBeGreaterThanOrEqual(16 * 8);
    expect(load.operations).toBeLessThanOrEqual(16 * 11);
  });

  it('open: counts latency from the intended send time, so a stall shows in the requests queued behind it', async () => {
    let calls = 0;
    const load = await runOpenLoop(new Recorder('open', 'open loop'), 100, 0.5, async () => {
      calls += 1;
      // The first operation blocks the event loop for 300 ms: the next ones go out late.
      if (calls === 1) for (const until = performance.now() + 300; performance.now() < until;);
      return { outcome: calls === 2 ? '500' : '201', ok: calls !== 2 };
    });
    expect(load.operations).toBe(50);
    expect(load.errors).toBe(1);
    expect(load.statuses).toEqual({ '201': 49, '500': 1 });
    // About 30 requests were due during the stall: each waited for it, counted from its due time,
    // so it is in the tail, not in one slow request as a closed loop would see it.
    expect(load.latencyMs.p95).toBeGreaterThanOrEqual(200);
    expect(load.latencyMs.max).toBeGreaterThanOrEqual(250);
  });
});

/** A run that meets every check: 600 transfers/s against a bound of 1,000, p95 40 ms and p99 90 ms at 500/s. */
function passingRun(): Omit<BenchSummary, 'checks'> {
  const phase = (overrides: Partial<PhaseResult>): PhaseResult => ({
    phase: 'transfers, empty database',
    mode: 'closed loop, 32 clients',
    workload: 'transfers',
    loop: 'closed',
    database: 'empty',
    elapsedS: 10,
    operations: 6000,
    okPerSecond: 600,
    errors: 0,
    statuses: { '201': 6000 },
    latencyMs: { p50: 50, p95: 120, p99: 300, max: 400 },
    ...overrides,
  });
  return {
    date: '2026-11-27',
    mode: 'light',
    options: (parseCommandLine([]) as { options: BenchSummary['options'] }).options,
    phases: [
      phase({}),
      phase({
        mode: 'open loop at 500/s',
        loop: 'open',
        offeredPerSecond: 500,
        okPerSecond: 500,
        latencyMs: { p50: 8, p95: 40, p99: 90, max: 300 },
      }),
    ],
    bound: { tool: 'pgbench (PostgreSQL) 15', durationS: 10, transactions: 10_000, tps: 1000 },
    outboxDrainS: 0.4,
    serviceMemoryMiB: { rss: 200, peak: 230 },
    serviceNodeOptions: '--max-old-space-size=256',
    loadAverage1m: 1,
    invariantViolations: [],
  };
}

const judged = (run: Omit<BenchSummary, 'checks'>): BenchSummary => ({ ...run, checks: judge(run) });
const failedChecks = (run: Omit<BenchSummary, 'checks'>) =>
  judge(run)
    .filter((c) => !c.pass)
    .map((c) => c.what);
const withPhase = (run: Omit<BenchSummary, 'checks'>, index: number, changes: Partial<PhaseResult>) => ({
  ...run,
  phases: run.phases.map((p, i) => (i === index ? { ...p, ...changes } : p)),
});

describe("the timed transfers' client", () => {
  let server: Server;
  let url: URL;
  const seen: { method?: string; url?: string; headers: Record<string, unknown>; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url === '/chunked') {
          res.write('{"part":');
          res.end('1}');
        } else if (req.url === '/hang-up') req.socket.destroy();
        else {
          // As the service answers: JSON with its length.
          const answer = JSON.stringify({ echoed: JSON.parse(body || 'null') });
          res.writeHead(req.url === '/refused' ? 422 : 201, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(answer),
          });
          res.end(answer);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends JSON with its headers and reads status and body, many requests over a few kept-alive connections', async () => {
    const client = new LeanHttpClient(url, 2);
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          client.send('POST', `/t/${i}`, { amount: `${i}.00` }, { 'idempotency-key': `k${i}` }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
      expect(answers.map((a) => JSON.parse(a.body).echoed.amount)).toEqual(
        Array.from({ length: 10 }, (_, i) => `${i}.00`),
      );
      expect(seen.find((r) => r.url === '/t/3')).toMatchObject({
        method: 'POST',
        headers: { 'idempotency-key': 'k3', 'content-type': 'application/json' },
      });
      expect((await client.send('POST', '/refused', {})).status).toBe(422);
    } finally {
      client.close();
    }
  });

  it('fails a request whose answer has no Content-Length or whose connection closes, and carries on with a new connection', async () => {
    const client = new LeanHttpClient(url, 1);
    try {
      await expect(client.send('GET', '/chunked')).rejects.toThrow(/without Content-Length/);
      await expect(client.send('POST', '/hang-up', {})).rejects.toThrow();
      expect((await client.send('POST', '/after', { ok: true })).status).toBe(201);
    } finally {
      client.close();
    }
  });
});

describe('the verdict', () => {
  it("passes a run that meets the spec's targets and half the bound, whatever the machine's absolute rate", () => {
    const checks = judge(passingRun());
    expect(checks.map((c) => c.what)).toEqual([
      'transfers/s, closed loop, empty database',
      'ratio to the bound, empty database',
      'p95 at 500/s offered, empty database',
      'p99 at 500/s offered, empty database',
      'failed requests',
      'ledger invariants',
      'outbox',
    ]);
    expect(checks.every((c) => c.pass)).toBe(true);
    expect(exitStatus(checks)).toBe(0);
    // The closed loop's own tail (p99 300 ms at 32 clients) is not judged: it is its clients over its rate.
    expect(JSON.stringify(checks)).not.toContain('2400');
  });

  it.each([
    [
      'a p95 of 100 ms at the offered rate',
      1,
      { latencyMs: { p50: 8, p95: 100, p99: 120, max: 300 } },
      'p95 at 500/s offered, empty database',
    ],
    [
      'a p99 of 250 ms at the offered rate',
      1,
      { latencyMs: { p50: 8, p95: 40, p99: 250, max: 300 } },
      'p99 at 500/s offered, empty database',
    ],
    ['499 transfers/s in the closed loop', 0, { okPerSecond: 499 }, 'transfers/s, closed loop, empty database'],
    ['one failed request', 1, { errors: 1 }, 'failed requests'],
  ])('fails a run with %s, and the exit status is 1', (_, index, changes, failed) => {
    const run = withPhase(passingRun(), index as number, changes as Partial<PhaseResult>);
    expect(failedChecks(run)).toEqual([failed]);
    expect(exitStatus(judge(run))).toBe(1);
  });

  it('fails a run below half the bound, and has no ratio to judge without a bound', () => {
    const run = passingRun();
    expect(failedChecks({ ...run, bound: { ...run.bound!, tps: 1300 } })).toEqual([
      'ratio to the bound, empty database',
    ]);
    expect(judge({ ...run, bound: undefined, boundMissing: PGBENCH_MISSING }).map((c) => c.what)).not.toContain(
      'ratio to the bound, empty database',
    );
  });

  it('fails a run whose ledger invariants broke, whose outbox did not drain or whose webhooks did not all arrive', () => {
    // A --webhook run samples the backlog in the open loop.
    const webhookBacklog = { maxOldestPendingS: 1, endOldestPendingS: 0, deliveredPerSecond: 500 };
    const run = withPhase(passingRun(), 1, { webhookBacklog });
    expect(failedChecks({ ...run, invariantViolations: ['balance drift for user 7'] })).toEqual(['ledger invariants']);
    expect(failedChecks({ ...run, outboxDrainS: undefined })).toEqual(['outbox']);
    const webhooks = { expected: 10, received: 9, duplicates: 0, drainMs: 5 };
    expect(failedChecks({ ...run, webhooks })).toEqual(['webhook events delivered']);
    expect(failedChecks({ ...run, webhooks: { ...webhooks, received: 10 } })).toEqual([]);
  });

  it('with --webhook, fails a run whose oldest pending delivery reached 10 s at the offered rate, or was not sampled', () => {
    const webhooks = { expected: 10, received: 10, duplicates: 0, drainMs: 5 };
    const backlog = (maxOldestPendingS: number) => ({
      maxOldestPendingS,
      endOldestPendingS: 0.5,
      deliveredPerSecond: 480,
    });
    const run = { ...passingRun(), webhooks };
    const closed = withPhase(run, 0, { webhookBacklog: backlog(60) });
    const judgedCheck = (r: Omit<BenchSummary, 'checks'>) =>
      judge(r).filter((c) => c.what.startsWith('oldest pending'));
    // The closed loop overloads on purpose: its backlog is reported, not judged.
    expect(judgedCheck(withPhase(closed, 1, { webhookBacklog: backlog(9.9) }))).toEqual([
      {
        what: 'oldest pending webhook at 500/s offered, empty database',
        measured: 'max 9.9 s, 0.5 s at the end',
        target: '< 10 s',
        pass: true,
      },
    ]);
    expect(failedChecks(withPhase(run, 1, { webhookBacklog: backlog(10) }))).toEqual([
      'oldest pending webhook at 500/s offered, empty database',
    ]);
    expect(judgedCheck(run)).toMatchObject([{ measured: 'not sampled', pass: false }]);
    expect(judgedCheck(passingRun())).toEqual([]);
  });

  it("reads the oldest pending delivery over every endpoint and the deliveries from the service's metrics", () => {
    const text = [
      '# TYPE payments_webhook_oldest_pending_age_seconds gauge',
      'payments_webhook_oldest_pending_age_seconds{endpoint="1"} 2.5',
      'payments_webhook_oldest_pending_age_seconds{endpoint="2"} 7.25',
      'payments_webhook_attempts_total{outcome="delivered",reason="none"} 1200',
      'payments_webhook_attempts_total{outcome="retrying",reason="status"} 30',
      'payments_webhook_attempts_total_created{outcome="delivered",reason="none"} 99999',
    ].join('\n');
    expect(readWebhookMetrics(text)).toEqual({ oldestPendingS: 7.25, delivered: 1200 });
    expect(readWebhookMetrics('')).toEqual({ oldestPendingS: 0, delivered: 0 });
  });

  it('judges the large database as the empty one', () => {
    const run = passingRun();
    const large = run.phases.map((p) => ({ ...p, database: 'large' as const, okPerSecond: p.okPerSecond - 200 }));
    expect(failedChecks({ ...run, phases: [...run.phases, ...large] })).toEqual([
      'transfers/s, closed loop, large database',
      'ratio to the bound, large database',
    ]);
  });
});

describe('the console summary', () => {
  const printed = (summary: BenchSummary) => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      printSummary(summary, { json: 'results.json', html: 'report.html' });
      return log.mock.calls.map((call) => String(call[0])).join('\n');
    } finally {
      log.mockRestore();
    }
  };

  it('ends with every check and the verdict, with the exit status it gives', () => {
    const text = printed(judged(withPhase(passingRun(), 1, { latencyMs: { p50: 8, p95: 40, p99: 260, max: 300 } })));
    expect(text).toContain(
      'bound: pgbench TPC-B (scale 10, 16 clients, 2 threads, -M prepared), same server, 10 s: 1000 transactions/s',
    );
    expect(text).toMatch(
      /\n {2}pass {2}ratio to the bound, empty database +0\.6 \(600 \/ 1000 TPC-B\/s\) \(target >= 0\.5\)\n/,
    );
    expect(text).toMatch(/\n {2}FAIL {2}p99 at 500\/s offered, empty database +260 ms \(target < 250 ms\)\n/);
    expect(text.split('\n').at(-1)).toBe('FAIL: 1 of 7 checks failed (exit status 1)');
    expect(printed(judged(passingRun())).split('\n').at(-1)).toBe('PASS: all 7 checks pass (exit status 0)');
  });

  it('with --webhook, shows the oldest pending delivery and the deliveries per second beside the transfers per second', () => {
    const webhooks = { expected: 10, received: 10, duplicates: 0, drainMs: 5 };
    const webhookBacklog = { maxOldestPendingS: 12.5, endOldestPendingS: 3, deliveredPerSecond: 180 };
    const text = printed(judged({ ...withPhase(passingRun(), 1, { webhookBacklog }), webhooks }));
    expect(text).toContain(
      '  webhooks: oldest pending max 12.5 s, 3 s at the end; 180 deliveries/s for 500 transfers/s',
    );
    expect(text).toMatch(
      /\n {2}FAIL {2}oldest pending webhook at 500\/s offered, empty database +max 12\.5 s, 3 s at the end \(target < 10 s\)\n/,
    );
    expect(text.split('\n').at(-1)).toBe('FAIL: 1 of 9 checks failed (exit status 1)');
    const html = renderReport('hooks', judged({ ...withPhase(passingRun(), 1, { webhookBacklog }), webhooks }), []);
    expect(html).toContain(
      '<td>oldest pending webhook at 500/s offered, empty database</td><td>max 12.5 s, 3 s at the end</td>',
    );
  });
});

describe('the HTML report', () => {
  const charted = (summary: BenchSummary) =>
    summary.phases.map((result) => {
      const recorder = new Recorder(result.phase, result.mode);
      for (const latency of [1, 2, 3, 40, 500]) recorder.record({ outcome: '201', ok: true }, latency);
      return { title: `${result.phase} (${result.mode})`, result, seconds: recorder.seconds };
    });

  it('opens with the verdict, then draws throughput and latency per phase with the bound, the rate and the targets', () => {
    const summary = judged(withPhase(passingRun(), 0, { okPerSecond: 450 }));
    const html = renderReport('Run <1>', summary, charted(summary));
    expect(html).toContain('<title>Run &lt;1&gt;</title>');
    expect(html).toMatch(/<section id="verdict"><h2><span class="fail">FAIL<\/span>: 2 of 7 checks failed<\/h2>/);
    expect(html.match(/<td class="fail">/g)).toHaveLength(2);
    expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('<svg'));
    expect(html.match(/<svg /g)).toHaveLength(4);
    const targets = [...html.matchAll(/<line class="target"[^>]*\/><text[^>]*>([^<]*)</g)].map((m) => m[1]);
    // The latency targets are drawn where they are judged: on the open loop.
    expect(targets).toEqual(['bound 1000/s', 'offered 500/s', 'p95 target 100 ms', 'p99 target 250 ms']);
    const passing = judged(passingRun());
    expect(renderReport('ok', passing, [])).toContain('<span class="pass">PASS</span>: all 7 checks pass');
  });
});

describe('the benchmark tool itself', () => {
  it('stays within 1,500 lines (issue 39: a tool, not a second product)', () => {
    const dir = join(REPO_ROOT, 'scripts', 'bench');
    const files = readdirSync(dir).filter((name) => name.endsWith('.ts'));
    const lines = files.reduce((sum, name) => sum + readFileSync(join(dir, name), 'utf8').split('\n').length - 1, 0);
    expect(files.length).toBeGreaterThan(5);
    expect(lines).toBeLessThanOrEqual(1500);
  });
});
