import { readFileSync } from 'node:fs';

/** How often the dirty page cache is read, and how large a fall counts as one burst of writeback. */
const SAMPLE_MS = 100;
const BURST_MIB = 32;

/** The kernel's writeback of the page cache over a phase (Linux only: /proc/meminfo). */
export interface Writeback {
  /** The most data written by processes and not yet on the disk at any sample. */
  peakDirtyMiB: number;
  /** Falls of 32 MiB or more between two samples 100 ms apart: writeback in one go. */
  bursts: number;
  largestBurstMiB: number;
}

/**
 * PostgreSQL extends a table by writing zero-filled pages through the page cache, where they stay
 * dirty until the kernel's expiry (30 s by default) and then go to the disk together. A commit's
 * WAL fdatasync that comes during such a burst waits for it: 45-50 ms at 1,000 transfers/s on
 * this project's machines (docs/decisions/0013-the-tail-at-1000-transfers-per-second.md). Watching the dirty page cache
 * shows those bursts beside a phase's tail, as the stall probe shows the machine stopping.
 */
export function startWritebackWatch(readDirty: () => number | undefined = readDirtyKiB): {
  stop(): Writeback | undefined;
} {
  const samples: number[] = [];
  const sample = () => {
    const dirty = readDirty();
    if (dirty !== undefined) samples.push(dirty);
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS).unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return samples.length > 1 ? summariseWriteback(samples) : undefined;
    },
  };
}

/** `Dirty:` of /proc/meminfo in KiB; undefined where there is no such file (not Linux). */
export function readDirtyKiB(meminfo?: string): number | undefined {
  let text = meminfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/meminfo', 'latin1');
    } catch {
      return undefined;
    }
  }
  const match = /^Dirty:\s+(\d+) kB$/m.exec(text);
  return match ? Number(match[1]) : undefined;
}

export function summariseWriteback(dirtyKiB: number[]): Writeback {
  const falls = dirtyKiB.slice(1).map((kib, i) => (dirtyKiB[i] - kib) / 1024);
  const bursts = falls.filter((mib) => mib >= BURST_MIB);
  return {
    peakDirtyMiB: Math.round(Math.max(0, ...dirtyKiB) / 1024),
    bursts: bursts.length,
    largestBurstMiB: Math.round(Math.max(0, ...bursts)),
  };
}
