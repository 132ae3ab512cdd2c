import { Worker } from 'node:worker_threads';

/** Milliseconds on the process-wide monotonic clock, the same in every thread (performance.now() is not). */
export const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * A thread of its own that posts its start time, then sleeps until each of the `count` times
 * start + i * intervalMs and posts i, never before its time on monotonicMs's clock. Atomics.wait
 * keeps fractions of a millisecond, where a timer of the event loop fires on whole ones.
 */
const CLOCK_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { intervalMs, count } = workerData;
const cell = new Int32Array(new SharedArrayBuffer(4));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const startMs = now();
parentPort.postMessage({ startMs });
for (let i = 0; i < count; i++) {
  const due = startMs + i * intervalMs;
  for (let left = due - now(); left > 0; left = due - now()) Atomics.wait(cell, 0, 0, left);
  parentPort.postMessage(i);
}
`;

/**
 * Calls `started` with the clock's start time, then `tick(i)` for i from 0 to count - 1, each as
 * soon after start + i * intervalMs as this thread's event loop allows; resolves after the last.
 * A message from another thread wakes the event loop at once, so at 1,000/s a send is late by a
 * turn of the loop, where a timer alone sent it 0.7 ms late at the median.
 */
export function runSendClock(
  intervalMs: number,
  count: number,
  started: (startMs: number) => void,
  tick: (index: number) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (count <= 0) return resolve();
    let ticked = 0;
    const clock = new Worker(CLOCK_THREAD, { eval: true, workerData: { intervalMs, count } });
    clock.on('message', (message: number | { startMs: number }) => {
      if (typeof message !== 'number') return started(message.startMs);
      tick(message);
      ticked += 1;
    });
    clock.on('error', reject);
    clock.on('exit', (code) =>
      ticked === count
        ? resolve()
        : reject(new Error(`the send clock stopped after ${ticked} of ${count} ticks (exit ${code})`)),
    );
  });
}
