import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh directory under the system temp folder. Embedded PostgreSQL runs as the postgres user
 * when we are root, so it may need to reach the directory (`forPostgres`).
 */
export function makeTempDir(prefix: string, { forPostgres = false } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  if (forPostgres) chmodSync(dir, 0o755);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Runs `work` with a fresh temp directory and deletes it afterwards, whatever happens. */
export async function withTempDir<T>(
  prefix: string,
  work: (dir: string) => Promise<T>,
  options: { forPostgres?: boolean } = {},
): Promise<T> {
  const dir = makeTempDir(prefix, options);
  try {
    return await work(dir);
  } finally {
    removeTempDir(dir);
  }
}
