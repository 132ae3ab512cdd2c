import type { Logger } from '@nestjs/common';
import type { DatabaseOutages } from './errors/database-outages';

/**
 * One run of a scheduled purge of rows that have outlived their use: `purge` deletes them and says
 * how many. A failure is logged, not thrown: the job runs again at its next tick, and nothing
 * waits on it. A database outage is the availability tracker's to log (once), not the job's.
 */
export async function runPurge(
  logger: Logger,
  job: string,
  rows: string,
  purge: () => Promise<number>,
  outages?: DatabaseOutages,
): Promise<void> {
  try {
    const purged = await purge();
    if (purged > 0) logger.log(`Purged ${purged} ${rows}`);
  } catch (error) {
    if (outages?.absorbs(job, error)) return;
    logger.error(`${job} failed: ${(error as Error).message}`);
  }
}

/**
 * Deletes in chunks of `size` rows until a chunk comes back short, so that no one statement locks
 * or writes a large share of a busy table; returns how many rows went.
 */
export async function deleteInChunks(size: number, deleteChunk: (size: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteChunk(size);
    total += deleted;
    if (deleted < size) return total;
  }
}
