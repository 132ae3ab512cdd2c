import { Worker } from 'node:worker_threads';

/** How often the probe asks to wake, and how late a wake-up must be to count as a stall. */
const PROBE_SLEEP_MS = 2;
const STALL_MS = 5;

/** What the probe saw over a phase: wake-ups at least 5 ms late, and how late. */
export interface MachineStalls {
  /** Wake-ups 10 ms late or more: each delays every request in flight by as much. */
  over10ms: number;
  over5ms: number;
  longestMs: number;
  /** The sum of the lateness of every stall of 5 ms or more. */
  stalledMs: number;
  /** Whether the probe ran at the highest priority (nice -20), ahead of the load's own processes. */
  elevated: boolean;
}

/**
 * A thread that sleeps 2 ms at a time, does nothing else (it allocates nothing, so it has no
 * collections of its own), and notes every wake-up that comes 5 ms or more late. Where it may, it
 * runs at nice -20, so the scheduler runs it before the service, PostgreSQL and the load generator:
 * what it then sees is the machine stopping everything (a virtual machine's host, interrupts),
 * not the load it is measuring. Without that right it runs at the normal priority and says so.
 */
const PROBE_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { setPriority } = require('node:os');
const { stop, sleepMs, stallMs } = workerData;
let elevated = true;
try { setPriority(-20); } catch { elevated = false; }
const now = () => Number(process.hrtime.bigint()) / 1e6;
const lateness = [];
for (let last = now(); Atomics.load(stop, 0) === 0; ) {
  Atomics.wait(stop, 0, 0, sleepMs);
  const woke = now();
  if (woke - last - sleepMs >= stallMs) lateness.push(woke - last - sleepMs);
  last = woke;
}
parentPort.postMessage({ lateness, elevated });
`;

/** Starts the probe; `stop()` ends it and summarises what it saw. */
export function startStallProbe(): { stop(): Promise<MachineStalls> } {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const probe = new Worker(PROBE_THREAD, {
    eval: true,
    workerData: { stop, sleepMs: PROBE_SLEEP_MS, stallMs: STALL_MS },
  });
  const report = new Promise<{ lateness: number[]; elevated: boolean }>((resolve, reject) => {
    probe.once('message', resolve);
    probe.once('error', reject);
  });
  // A phase that fails never stops its probe: it must not keep the bench alive.
  probe.unref();
  return {
    async stop() {
      probe.ref();
      Atomics.store(stop, 0, 1);
      Atomics.notify(stop, 0);
      const { lateness, elevated } = await report;
      await probe.terminate();
      return summariseStalls(lateness, elevated);
    },
  };
}

export function summariseStalls(latenessMs: number[], elevated: boolean): MachineStalls {
  return {
    over10ms: latenessMs.filter((ms) => ms >= 10).length,
    over5ms: latenessMs.length,
    longestMs: Math.round(Math.max(0, ...latenessMs) * 10) / 10,
    stalledMs: Math.round(latenessMs.reduce((sum, ms) => sum + ms, 0)),
    elevated,
  };
}
