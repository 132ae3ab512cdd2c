import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DataSource } from 'typeorm';
import { findRepoRoot } from '../common/repo-root';

/**
 * Repeatable migrations (Flyway's idea) for database functions: each function has one canonical
 * file, src/<module>/sql/<name>.sql, holding one CREATE OR REPLACE statement. After the versioned
 * migrations, every file whose checksum differs from the one recorded in sql_functions is applied.
 * A change of a function's arguments or result type still needs a versioned migration that drops
 * the old one first (CREATE OR REPLACE cannot change them).
 */
interface SqlFunctionFile {
  name: string;
  path: string;
  sql: string;
  checksum: string;
}

/** src/ in a checkout (the canonical files); dist/src/ where only the build was shipped. */
function sqlSourceRoot(): string {
  const source = join(findRepoRoot(), 'src');
  return existsSync(source) ? source : join(__dirname, '..');
}

export function readSqlFunctionFiles(root: string = sqlSourceRoot()): SqlFunctionFile[] {
  const files = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'sql')))
    .flatMap((entry) =>
      readdirSync(join(root, entry.name, 'sql'))
        .filter((file) => file.endsWith('.sql'))
        .map((file) => join(root, entry.name, 'sql', file)),
    )
    .sort();
  if (files.length === 0) throw new Error(`No database function files (*/sql/*.sql) under ${root}`);
  return files.map((path) => {
    const sql = readFileSync(path, 'utf8');
    return { name: basename(path, '.sql'), path, sql, checksum: createHash('sha256').update(sql).digest('hex') };
  });
}

/** Applies the changed function files, each with its checksum in one transaction; returns their names. */
export async function applySqlFunctions(dataSource: DataSource, files = readSqlFunctionFiles()): Promise<string[]> {
  const rows = (await dataSource.query('SELECT name, checksum FROM sql_functions')) as {
    name: string;
    checksum: string;
  }[];
  const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
  const changed = files.filter((file) => recorded.get(file.name) !== file.checksum);
  for (const file of changed) {
    await dataSource.transaction(async (manager) => {
      await manager.query(file.sql);
      await manager.query(
        `INSERT INTO sql_functions (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [file.name, file.checksum],
      );
    });
  }
  return changed.map((file) => file.name);
}
