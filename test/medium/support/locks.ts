import type { Client } from 'pg';

/** How many backends are waiting for a lock that `pid` holds. */
export async function backendsBlockedBy(db: Client, pid: number): Promise<number> {
  const result = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
    [pid],
  );
  return result.rows[0].n;
}

/** Resolves once some backend waits for a lock `pid` holds; rejects after `timeoutMs`. */
export async function waitForBackendBlockedBy(db: Client, pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await backendsBlockedBy(db, pid)) === 0) {
    if (Date.now() > deadline) throw new Error(`no backend waited for a lock of backend ${pid} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls until a backend waits for a lock `pid` holds ('blocked') or until stopped. */
export function watchForBackendBlockedBy(db: Client, pid: number): { blocked: Promise<'blocked'>; stop(): void } {
  let stopped = false;
  const blocked = new Promise<'blocked'>((resolve) => {
    const poll = async () => {
      while (!stopped) {
        if ((await backendsBlockedBy(db, pid)) > 0) return resolve('blocked');
        await new Promise((next) => setTimeout(next, 20));
      }
    };
    void poll();
  });
  return { blocked, stop: () => (stopped = true) };
}

/** Resolves once backend `pid` waits for a lock, whoever holds it; rejects after `timeoutMs`. */
export async function waitForBackendWaitingOnLock(db: Client, pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const waiting = async () =>
    (
      await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
        [pid],
      )
    ).rows[0].n > 0;
  while (!(await waiting())) {
    if (Date.now() > deadline) throw new Error(`backend ${pid} did not wait for a lock within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
