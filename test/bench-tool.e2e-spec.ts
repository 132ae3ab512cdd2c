import { getPriority, setPriority } from 'node:os';
import { Histogram, Registry } from 'prom-client';
import { batchSizesFrom, summariseBatchSizes } from '../scripts/bench/batch-sizes';
import { loadDriver, Recorder, runOpenLoop, warmUp } from '../scripts/bench/load';
import { parseCommandLine } from '../scripts/bench/options';
import { findPgbench, PGBENCH_MISSING, PGBENCH_SHAPE, tailFromPgbenchLogs } from '../scripts/bench/pgbench';
import { monotonicMs, runSendClock } from '../scripts/bench/send-clock';
import { startStallProbe, summariseStalls } from '../scripts/bench/stall-probe';
import { printSummary } from '../scripts/bench/print';
import { renderReport } from '../scripts/bench/report-html';
import type { BenchSummary, PhaseResult } from '../scripts/bench/results';
import { gcFrom, summariseGc } from '../scripts/bench/service-gc';
import { serviceLatencyFrom, summariseServiceLatency } from '../scripts/bench/service-latency';
import { readDirtyKiB, startWritebackWatch, summariseWriteback } from '../scripts/bench/writeback';
import { loadConfig } from '../src/config/app-config';
import { makeTempDir, removeTempDir } from './support/temp-dir';

describe('the benchmark command line', () => {
  it('answers --help, and reads options with their defaults', () => {
    expect(parseCommandLine(['--help'])).toEqual({ kind: 'help' });
    const parsed = parseCommandLine(['--duration', '5', '--rate', '1000', '--seed-large']);
    expect(parsed).toMatchObject({
      kind: 'run',
      options: { durationS: 5, rate: 1000, concurrency: 32, seedLarge: true, reads: true, readDurationS: 5 },
    });
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

describe('the bound and the batch sizes', () => {
  it('measures the bound with pgbench by default; the Node-driven TPC-B only on request, as driver overhead', () => {
    expect(parseCommandLine([])).toMatchObject({ options: { boundDurationS: 10, driverTpcbDurationS: 0 } });
    expect(parseCommandLine(['--driver-tpcb', '5'])).toMatchObject({ options: { driverTpcbDurationS: 5 } });
  });

  it('finds no pgbench where there is none, and then says how to install it', () => {
    expect(findPgbench({ PATH: '/nonexistent', PGBENCH: '/nonexistent/pgbench' })).toBeUndefined();
    expect(PGBENCH_MISSING).toContain('apt-get install postgresql-client');
    expect(PGBENCH_MISSING).toContain('--bound-duration 0');
  });

  it("reads the database's own tail at the offered rate from pgbench's per-thread logs, in ms from the scheduled start", () => {
    // pgbench -R -l: client, transaction, latency (us, from the scheduled start), script, epoch s, us, schedule lag (us).
    const thread0 = ['0 1 3202 0 1795528752 286181 75', '1 1 7746 0 1795528752 356115 113', ''].join('\n');
    const thread1 = Array.from({ length: 98 }, (_, i) => `8 ${i + 1} ${1000 + i} 0 1795528752 317626 88`).join('\n');
    const tail = tailFromPgbenchLogs([thread0, thread1]);
    expect(tail.transactions).toBe(100);
    expect(tail.latencyMs).toEqual({ p50: 1, p95: 1.1, p99: 3.2, max: 7.7 });
    expect(() => tailFromPgbenchLogs(['', 'pgbench: error'])).toThrow('no transaction');
  });

  it('summarises the batch-size histogram over a phase: mean, and p50 and p99 as bucket bounds', () => {
    const snapshot = (counts: number[], sum: number) => ({
      buckets: [1, 2, 4, 8, 16].map((le, i) => ({ le, count: counts[i] })),
      sum,
      count: counts[counts.length - 1],
    });
    // Before: 10 single transfers. During the phase: 50 batches of 1, 49 of at most 8, 1 of at most 16.
    const before = snapshot([10, 10, 10, 10, 10], 10);
    const after = snapshot([60, 60, 60, 109, 110], 10 + 50 + 49 * 8 + 16);
    expect(summariseBatchSizes(before, after)).toEqual({ batches: 100, mean: 4.6, p50: 1, p99: 8 });
    expect(summariseBatchSizes(before, before)).toBeUndefined();
  });

  it("reads the batch sizes and the service's GC pauses from one Prometheus text, and their change over a phase", async () => {
    // The names, labels and buckets the service exposes: prom-client's default GC histogram and ours.
    const registry = new Registry();
    const gc = new Histogram({
      name: 'nodejs_gc_duration_seconds',
      help: 'gc',
      labelNames: ['kind'],
      buckets: [0.001, 0.01, 0.1, 1, 2, 5],
      registers: [registry],
    });
    const batches = new Histogram({
      name: 'payments_transfer_batch_size',
      help: 'b',
      buckets: [1, 2, 4],
      registers: [registry],
    });
    gc.observe({ kind: 'major' }, 0.004);
    gc.observe({ kind: 'minor' }, 0.002);
    batches.observe(1);
    const before = await registry.metrics();
    for (const seconds of [0.006, 0.012, 0.03]) gc.observe({ kind: 'major' }, seconds);
    for (let i = 0; i < 10; i += 1) gc.observe({ kind: 'minor' }, 0.003);
    gc.observe({ kind: 'incremental' }, 0.005);
    batches.observe(3);
    const after = await registry.metrics();

    expect(summariseGc(gcFrom(before), gcFrom(after))).toEqual({
      major: { collections: 3, pauseMs: 48, over10ms: 2 },
      minor: { collections: 10, pauseMs: 30 },
      incrementalMs: 5,
    });
    expect(summariseBatchSizes(batchSizesFrom(before), batchSizesFrom(after))).toEqual({
      batches: 1,
      mean: 3,
      p50: 4,
      p99: 4,
    });
    expect(gcFrom(undefined)).toBeUndefined();
    expect(gcFrom('# no GC metrics here')).toBeUndefined();
  });

  it('reads the share of completed transfers the service answered within 10 ms from its own histogram, over a phase', async () => {
    // The name, label and buckets the service exposes (src/movements/movement-metrics.ts).
    const registry = new Registry();
    const transfers = new Histogram({
      name: 'payments_transfer_duration_seconds',
      help: 't',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05],
      registers: [registry],
    });
    transfers.observe({ outcome: '201' }, 0.02);
    const before = await registry.metrics();
    // During the phase: 997 completed within 10 ms, 3 slower, and refusals that do not count.
    for (let i = 0; i < 990; i += 1) transfers.observe({ outcome: '201' }, 0.004);
    for (let i = 0; i < 7; i += 1) transfers.observe({ outcome: '201' }, 0.01);
    for (const seconds of [0.011, 0.03, 0.2]) transfers.observe({ outcome: '201' }, seconds);
    for (let i = 0; i < 50; i += 1) transfers.observe({ outcome: '422' }, 0.03);
    const after = await registry.metrics();

    expect(summariseServiceLatency(serviceLatencyFrom(before), serviceLatencyFrom(after))).toEqual({
      transfers: 1000,
      within10msPercent: 99.7,
    });
    expect(summariseServiceLatency(serviceLatencyFrom(after), serviceLatencyFrom(after))).toBeUndefined();
    expect(serviceLatencyFrom('# no transfer latency here')).toBeUndefined();
  });
});

describe('the open loop', () => {
  it('counts latency from the intended send time, so a stall shows in the requests queued behind it', async () => {
    let calls = 0;
    const recorder = new Recorder('open', 'open loop');
    const load = await runOpenLoop(recorder, 100, 0.5, async () => {
      calls += 1;
      // The first operation blocks the event loop for 300 ms: the next ones go out late.
      if (calls === 1) for (const until = performance.now() + 300; performance.now() < until;);
      return { outcome: '201', ok: true };
    });
    expect(load.operations).toBe(50);
    expect(load.errors).toBe(0);
    expect(load.latencyMs.max).toBeGreaterThanOrEqual(250);
    // From the actual send, the stall is invisible for every request but the first.
    expect(load.serviceTimeMs!.p50).toBeLessThan(load.latencyMs.p50);
  });
});

describe('the send clock', () => {
  it('gives its start first, then every tick in order, none before its time', async () => {
    const events: { index?: number; at: number; startMs?: number }[] = [];
    await runSendClock(
      0.5,
      200,
      (startMs) => events.push({ startMs, at: monotonicMs() }),
      (index) => events.push({ index, at: monotonicMs() }),
    );
    const [start, ...ticks] = events;
    expect(start.startMs).toBeDefined();
    expect(ticks.map((tick) => tick.index)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    const early = ticks.filter((tick) => tick.at < start.startMs! + tick.index! * 0.5);
    expect(early).toEqual([]);
  });

  it('ends at once when there is nothing to send', async () => {
    const ticks: number[] = [];
    await runSendClock(
      1,
      0,
      () => ticks.push(-1),
      (index) => ticks.push(index),
    );
    expect(ticks).toEqual([]);
  });
});

/** Whether this thread may take nice -20 (root, or CAP_SYS_NICE); it goes back to where it was. */
function mayRaisePriority(): boolean {
  const before = getPriority();
  try {
    setPriority(-20);
    setPriority(before);
    return true;
  } catch {
    return false;
  }
}

describe('the machine stall probe', () => {
  it('counts the wake-ups 5 ms late or more, and those of 10 ms or more apart', () => {
    expect(summariseStalls([5.2, 12.34, 30.06, 9.9], true)).toEqual({
      over10ms: 2,
      over5ms: 4,
      longestMs: 30.1,
      stalledMs: 57,
      elevated: true,
    });
    expect(summariseStalls([], false)).toEqual({
      over10ms: 0,
      over5ms: 0,
      longestMs: 0,
      stalledMs: 0,
      elevated: false,
    });
  });

  it('runs in a thread of its own until stopped, and says whether it could run ahead of the load', async () => {
    const probe = startStallProbe();
    // This thread is busy for 40 ms: a probe in it would see one stall of about 40 ms. (The
    // machine itself may still stop the probe for a few milliseconds: the bound leaves room.)
    for (const until = performance.now() + 40; performance.now() < until;);
    const stalls = await probe.stop();
    expect(stalls.longestMs).toBeLessThan(30);
    // It runs at nice -20 exactly where a thread of this process may raise itself there.
    expect(stalls.elevated).toBe(mayRaisePriority());
  });
});

describe('the kernel writeback watch', () => {
  it('reads the dirty page cache from /proc/meminfo, and nothing from a text without it', () => {
    expect(readDirtyKiB('MemTotal:       24000000 kB\nDirty:            119808 kB\nWriteback:           0 kB\n')).toBe(
      119808,
    );
    expect(readDirtyKiB('MemTotal:       24000000 kB\n')).toBeUndefined();
  });

  it('counts the falls of 32 MiB or more between two samples as bursts of writeback', () => {
    const mib = (values: number[]) => values.map((value) => value * 1024);
    // Growing by 0.3 MiB a sample, then written back at once twice (110 and 40 MiB); a fall of
    // 31 MiB is not a burst.
    expect(summariseWriteback(mib([70, 70.3, 110, 0, 1, 41, 1, 32, 1]))).toEqual({
      peakDirtyMiB: 110,
      bursts: 2,
      largestBurstMiB: 110,
    });
    expect(summariseWriteback(mib([5, 6, 7]))).toEqual({ peakDirtyMiB: 7, bursts: 0, largestBurstMiB: 0 });
  });

  it('samples every 100 ms while a phase runs, and once more when it stops', async () => {
    // Dirty data that grows by 1 MiB a sample, then is written back at once: a burst of 3 MiB is
    // no burst, but the peak is there only if at least four samples were taken.
    const dirtyMiB = [1, 2, 3, 4, 0];
    let reads = 0;
    const watch = startWritebackWatch(() => 1024 * dirtyMiB[Math.min(reads++, dirtyMiB.length - 1)]);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(watch.stop()).toEqual({ peakDirtyMiB: 4, bursts: 0, largestBurstMiB: 0 });
    expect(reads).toBeGreaterThanOrEqual(5);
    // Where there is no /proc/meminfo, there is nothing to say.
    expect(startWritebackWatch(() => undefined).stop()).toBeUndefined();
  });
});

describe('the summary of an open-loop run', () => {
  const openLoopRun = (p99: number, over10ms: number, writebackBursts = 0): BenchSummary => {
    const latencyMs = { p50: 4, p95: 7, p99, max: 40 };
    const phase: PhaseResult = {
      phase: 'transfers, empty database',
      mode: 'open loop at 1000/s',
      elapsedS: 20,
      operations: 20_000,
      okPerSecond: 1000,
      errors: 0,
      statuses: { '201': 20_000 },
      latencyMs,
      serviceTimeMs: latencyMs,
      cpuMsPerOp: { loadGenerator: 0.18 },
      cpuCoresBusy: {},
      walBytesPerOp: 4600,
      statements: { method: 'test', transactionsPerOp: 0.5, rowWritesPerOp: 8 },
      serviceLatency: { transfers: 20_000, within10msPercent: 99.6 },
      machineStalls: {
        over10ms,
        over5ms: over10ms,
        longestMs: over10ms ? 31 : 0,
        stalledMs: 31 * over10ms,
        elevated: true,
      },
      writeback: { peakDirtyMiB: 117, bursts: writebackBursts, largestBurstMiB: writebackBursts ? 117 : 0 },
    };
    return {
      date: '2026-11-25',
      mode: 'light',
      options: { rate: 1000 } as BenchSummary['options'],
      phases: [phase],
      serviceNodeOptions: '',
      loadAverage1m: 1,
      invariantViolations: [],
    };
  };
  const printed = (summary: BenchSummary) => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      printSummary(summary, { json: 'results.json', html: 'report.html' });
      return log.mock.calls.map((call) => String(call[0])).join('\n');
    } finally {
      log.mockRestore();
    }
  };

  it("puts the service's own share within 10 ms and the machine's stalls beside a p99 that misses", () => {
    const text = printed(openLoopRun(12.4, 2));
    expect(text).toContain('open loop p99    12.4 ms at 1000/s offered (1000/s done): MISSES <= 10 ms');
    expect(text).toContain('inside the service 99.6% of completed transfers within 10 ms');
    expect(text).toContain('the machine stopped 2 times for 10 ms or more during it (longest 31 ms)');
    expect(text).toContain(
      'machine: 2 stalls of 10 ms or more, 2 of 5 ms or more (longest 31 ms, 62 ms in all), seen by a probe thread at nice -20',
    );
  });

  it('does not blame the machine for a p99 that meets the target, nor a miss it did not stop for', () => {
    expect(printed(openLoopRun(9.8, 2))).not.toContain('the machine stopped');
    expect(printed(openLoopRun(12.4, 0))).not.toContain('the machine stopped');
  });

  const withBound = (summary: BenchSummary, atRateCpuMs?: number): BenchSummary => ({
    ...summary,
    phases: [{ ...summary.phases[0], cpuMsPerOp: { postgres: 0.6, loadGenerator: 0.18 } }],
    bound: {
      tool: 'pgbench (PostgreSQL) 18',
      shape: PGBENCH_SHAPE,
      durationS: 10,
      transactions: 50_000,
      tps: 5000,
      cpuMsPerTransaction: { postgres: 0.25 },
      walBytesPerTransaction: 700,
      atRate: {
        rate: 1000,
        transactions: 10_000,
        latencyMs: { p50: 1, p95: 2, p99: 3, max: 9 },
        postgresCpuMsPerTransaction: atRateCpuMs,
      },
    },
  });

  it("holds PostgreSQL's CPU per transfer in open loop to pgbench's at the same rate, not to its full-load cost", () => {
    const text = printed(withBound(openLoopRun(9.8, 0), 0.7));
    expect(text).toContain(
      'PostgreSQL CPU   0.6 ms per transfer vs 0.7 ms per pgbench transaction at the same rate (1000/s): meets below',
    );
    expect(text).toContain('from the scheduled start; PostgreSQL CPU 0.7 ms per transaction');
    expect(printed(withBound(openLoopRun(9.8, 0), 0.5))).toContain('at the same rate (1000/s): MISSES below');
    expect(printed(withBound(openLoopRun(9.8, 0)))).not.toContain('PostgreSQL CPU   ');
  });

  it("holds it to pgbench's full-load cost in closed loop, where the at-rate figure does not apply", () => {
    const closedLoop = { ...withBound(openLoopRun(9.8, 0), 0.7), options: {} as BenchSummary['options'] };
    expect(printed(closedLoop)).toContain(
      'PostgreSQL CPU   0.6 ms per transfer vs 0.25 ms per pgbench transaction: MISSES below',
    );
  });

  it("puts the kernel's bursts of writeback beside a p99 that misses, and not beside one that meets", () => {
    const text = printed(openLoopRun(12.4, 0, 2));
    expect(text).toContain(
      'the kernel wrote 2 bursts of dirty pages back during it (largest 117 MiB); a commit that comes during one waits for it',
    );
    expect(text).toContain(
      'kernel writeback: dirty page cache peaked at 117 MiB; 2 bursts of 32 MiB or more written back at once (largest 117 MiB)',
    );
    expect(printed(openLoopRun(9.8, 0, 2))).not.toContain('the kernel wrote');
    expect(printed(openLoopRun(12.4, 0, 0))).not.toContain('the kernel wrote');
  });
});

describe('the load a phase offers', () => {
  // Each operation takes 40 ms: 16 closed-loop callers would make about 16 × 0.4 s / 40 ms = 160
  // calls in 0.4 s, an open loop at 100/s exactly 40, however long each takes.
  const slow = async () => {
    await new Promise((resolve) => setTimeout(resolve, 40));
    return { outcome: '201', ok: true };
  };

  it('is the open loop at the offered rate when there is one', async () => {
    const drive = loadDriver({ rate: 100, concurrency: 16 }, slow);
    expect((await drive(new Recorder('transfers', 'open loop'), 0.4)).operations).toBe(40);
  });

  it('is the closed loop of every client without a rate', async () => {
    const drive = loadDriver({ concurrency: 16 }, slow);
    expect((await drive(new Recorder('transfers', 'closed loop'), 0.4)).operations).toBeGreaterThanOrEqual(16 * 8);
  });

  it('warms up in closed loop, then settles as long again at the rate before an open-loop measurement', async () => {
    const said: string[] = [];
    const [warm, settling, ...more] = await warmUp({ rate: 100, concurrency: 16 }, 0.4, slow, (line) =>
      said.push(line),
    );
    expect(warm.mode).toBe('closed');
    expect(warm.operations).toBeGreaterThanOrEqual(16 * 8);
    expect(settling.mode).toBe('open loop at 100/s');
    expect(settling.operations).toBe(40);
    expect(more).toEqual([]);
    expect(said).toEqual([
      'warm-up 0.4 s (closed loop, 16 clients)',
      'settling 0.4 s at the measured load (open loop at 100/s)',
    ]);
  });

  it('only warms up before a closed-loop measurement', async () => {
    const steps = await warmUp({ concurrency: 16 }, 0.4, slow, () => undefined);
    expect(steps.map((step) => step.mode)).toEqual(['closed']);
  });
});

describe('the HTML report', () => {
  it('draws throughput and latency over time and a histogram for each phase', () => {
    const recorder = new Recorder('transfers', 'closed loop');
    for (const latency of [1, 2, 3, 40, 500]) recorder.record({ outcome: '201', ok: true }, latency);
    recorder.bucket(2).rssMiB = 120;
    const html = renderReport('Run <1>', { ok: true }, [
      { title: 'transfers', seconds: recorder.seconds, latenciesMs: recorder.latenciesMs },
    ]);
    expect(html).toContain('<title>Run &lt;1&gt;</title>');
    expect(html.match(/<svg /g)).toHaveLength(4);
    expect(html).toContain('Throughput (completed per second)');
    expect(html).toContain('Latency per second (ms)');
    expect(html.match(/<rect [^>]*fill="#1f77b4"/g)).toHaveLength(50);
  });
});
