import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { ArchivedTable, Month } from './archive-month';

// An archived month is a directory <DIR>/<YYYY-MM>/ with one gzip-compressed file per table (one
// row a line: PostgreSQL's row_to_json of the row, so every value keeps its exact text) and
// manifest.json. The database keeps the manifest's SHA-256 (archived_months), and the manifest
// keeps each file's.

export const MANIFEST_FORMAT = 'payments-archive-v1';
const MANIFEST = 'manifest.json';

export interface ArchiveFile {
  table: ArchivedTable;
  file: string;
  rows: number;
  sha256: string;
}

/**
 * One account's chain across the month: where it starts (the hash and balance of its entry just
 * before the month, null and 0 when none) and its head at the cut. Ids and amounts as text.
 */
export interface AccountCheckpoint {
  accountId: string;
  entries: string;
  firstEntryId: string;
  previousHash: string | null;
  previousBalance: string;
  lastEntryId: string;
  hash: string;
  balanceAfter: string;
  /** Credits minus debits over the month. */
  net: string;
}

export interface ArchiveManifest {
  format: typeof MANIFEST_FORMAT;
  month: Month;
  from: string;
  to: string;
  archivedAt: string;
  files: ArchiveFile[];
  checkpoints: AccountCheckpoint[];
}

export const monthDirectory = (dir: string, month: Month) => join(dir, month);
export const tableFile = (table: ArchivedTable) => `${table}.ndjson.gz`;

/** Writes the lines gzip-compressed, durably (written aside, flushed, then renamed); how many there were. */
export async function writeLines(path: string, batches: AsyncIterable<string[]>): Promise<number> {
  let rows = 0;
  const aside = `${path}.partial`;
  async function* text() {
    for await (const lines of batches) {
      rows += lines.length;
      if (lines.length > 0) yield `${lines.join('\n')}\n`;
    }
  }
  await pipeline(text(), createGzip(), createWriteStream(aside));
  await flush(aside);
  await rename(aside, path);
  return rows;
}

/** The file's lines, read back through gunzip, in batches. */
export async function* readLines(path: string, batchSize: number): AsyncGenerator<string[]> {
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  let batch: string[] = [];
  for await (const line of lines) {
    if (line === '') continue;
    batch.push(line);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

export const sha256Text = (text: string) => createHash('sha256').update(text).digest('hex');

/** Writes the manifest durably; returns the SHA-256 of its bytes, which the database keeps. */
export async function writeManifest(directory: string, manifest: ArchiveManifest): Promise<string> {
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  const path = join(directory, MANIFEST);
  await writeFile(`${path}.partial`, text);
  await flush(`${path}.partial`);
  await rename(`${path}.partial`, path);
  await flush(directory);
  return sha256Text(text);
}

/** The manifest as written and the SHA-256 of its bytes; null when the month has none. */
export async function readManifest(directory: string): Promise<{ manifest: ArchiveManifest; sha256: string } | null> {
  let text: string;
  try {
    text = await readFile(join(directory, MANIFEST), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return { manifest: JSON.parse(text) as ArchiveManifest, sha256: sha256Text(text) };
}

export async function makeDirectory(path: string): Promise<void> {
  await mkdir(path, { recursive: true });
}

async function flush(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
