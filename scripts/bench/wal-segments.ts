import type { ClientBase } from 'pg';

/**
 * Enough recycled WAL segments for a run's measured phases: 48 of 16 MiB (768 MiB) hold about
 * five minutes at 1,000 transfers/s, or a full-load run's 30 s several times over.
 */
export const BENCH_WAL_SEGMENTS = 48;

/**
 * Makes a new cluster write its WAL the way a database that has been running does: into segment
 * files recycled at a checkpoint. A cluster fresh from initdb has none, so each time the WAL
 * crosses into a new 16 MiB segment, the commit that gets there creates the file, writes 16 MiB of
 * zeros and syncs it while every other commit waits: at 1,000 transfers/s (4.6 kB of WAL each)
 * that is a stall of tens of milliseconds every 3.5 s, a cost of the cluster's first minutes, not
 * of the service or of pgbench. So before anything is measured, each of `segments` segments is
 * filled (one WAL record, then a switch to the next), and a checkpoint recycles them: PostgreSQL
 * keeps about twice the WAL written since the last checkpoint, within max_wal_size, as files to
 * reuse. Needs a superuser (pg_switch_wal); the bench runs it on its own embedded server only.
 * Returns the seconds it took and the recycled segments then ready.
 */
export async function recycleWalSegments(
  client: ClientBase,
  segments = BENCH_WAL_SEGMENTS,
): Promise<{ seconds: number; ready: number }> {
  const started = performance.now();
  for (let segment = 0; segment < segments; segment++) {
    // A switch only happens out of a segment that holds a record, so write one first.
    await client.query(`SELECT pg_logical_emit_message(false, 'bench', 'wal warm-up')`);
    await client.query('SELECT pg_switch_wal()');
  }
  await client.query('CHECKPOINT');
  return { seconds: (performance.now() - started) / 1000, ready: await readyWalSegments(client) };
}

/** WAL segment files in pg_wal that no WAL has been written to yet: recycled, ready for reuse. */
export async function readyWalSegments(client: ClientBase): Promise<number> {
  const { rows } = await client.query<{ ready: number }>(
    `SELECT count(*)::int AS ready FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$' AND name > pg_walfile_name(pg_current_wal_lsn())`,
  );
  return rows[0].ready;
}
