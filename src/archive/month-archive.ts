import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientBase } from 'pg';
import { beginTransaction, commitTransaction, rollbackQuietly } from '../database/in-transaction';
import { LedgerCheckpointsRepository } from '../ledger/ledger-checkpoints.repository';
import {
  type AccountCheckpoint,
  type ArchiveFile,
  type ArchiveManifest,
  MANIFEST_FORMAT,
  makeDirectory,
  monthDirectory,
  readLines,
  readManifest,
  sha256File,
  tableFile,
  writeLines,
  writeManifest,
} from './archive-files';
import { ARCHIVED_TABLES, type ArchivedTable, type Month, monthStart, nextMonth } from './archive-month';
import { ArchiveScratchRepository, type ScratchFindings } from './archive-scratch.repository';
import { ArchivedMonthsRepository } from './archived-months.repository';
import { MonthPartitionsRepository } from './month-partitions.repository';

// npm run archive (scripts/archive/archive.ts): monthly partitions of the money records to files
// and back. Each month is one transaction that holds off writes to it, writes its files, reads
// them back and checks them, records the month and each account's chain head at the cut, and only
// then detaches and drops its partitions; a failure anywhere leaves the month live as it was.

const BATCH = 5000;

/** A refusal the operator can act on (exit 1): nothing was changed. */
export class ArchiveRefusal extends Error {}

export interface ArchiveRequest {
  before: Month;
  dir: string;
  force: boolean;
  retentionYears: number;
}

export interface MonthResult {
  month: Month;
  outcome: 'archived' | 'already-archived' | 'restored' | 'already-live';
  transactions: number;
  ledgerEntries: number;
}

/** Archives every month before `before` that still has partitions; months archived before are skipped. */
export async function archiveBefore(db: ClientBase, request: ArchiveRequest): Promise<MonthResult[]> {
  const { before } = request;
  await refuseYoungMonths(db, request);
  const archived = new Map((await ArchivedMonthsRepository.list(db)).map((row) => [row.month, row]));
  const partitions = await partitionsBefore(db, before);
  const pending = [...partitions.keys()].filter((month) => !archived.has(month));
  await refuseArchivedMonthsWithRows(db, partitions, archived);
  if (pending.length > 0) await refuseCutThrough(db, before);
  const results: MonthResult[] = [...archived.values()]
    .filter((row) => row.month < before)
    .map((row) => ({
      month: row.month,
      outcome: 'already-archived',
      transactions: Number(row.transactions),
      ledgerEntries: Number(row.ledgerEntries),
    }));
  for (const month of pending) results.push(await archiveMonth(db, month, partitions.get(month)!, request.dir));
  return results.sort((a, b) => a.month.localeCompare(b.month));
}

async function refuseYoungMonths(db: ClientBase, { before, force, retentionYears }: ArchiveRequest): Promise<void> {
  const { current, retained } = await MonthPartitionsRepository.clock(db, retentionYears);
  if (before > current) {
    throw new ArchiveRefusal(
      `--before ${before} reaches the current month ${current}, which is not closed: ` +
        `only months that have ended can be archived (at most --before ${current})`,
    );
  }
  if (!force && before > retained) {
    throw new ArchiveRefusal(
      `--before ${before} reaches months younger than RETENTION_YEARS (${retentionYears} years): ` +
        `without --force the newest month that may be archived is the one before ${retained} (--before ${retained})`,
    );
  }
}

/** Each month before the cut that has partitions, with the tables that have one. */
async function partitionsBefore(db: ClientBase, before: Month): Promise<Map<Month, ArchivedTable[]>> {
  const months = new Map<Month, ArchivedTable[]>();
  for (const table of ARCHIVED_TABLES) {
    for (const month of await MonthPartitionsRepository.months(db, table)) {
      if (month < before) months.set(month, [...(months.get(month) ?? []), table]);
    }
  }
  return new Map([...months.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/** An archived month's partition made again (by a seed, say) must stay empty: its rows would be neither archived nor live. */
async function refuseArchivedMonthsWithRows(
  db: ClientBase,
  partitions: Map<Month, ArchivedTable[]>,
  archived: Map<Month, unknown>,
): Promise<void> {
  for (const [month, tables] of partitions) {
    if (!archived.has(month)) continue;
    for (const table of tables) {
      const rows = await MonthPartitionsRepository.count(db, table, month);
      if (rows > 0) {
        throw new ArchiveRefusal(
          `${month} is archived, yet ${table} holds ${rows} rows of it again: restore the month ` +
            `(--restore <DIR> --month ${month}) before archiving it again`,
        );
      }
    }
  }
}

async function refuseCutThrough(db: ClientBase, before: Month): Promise<void> {
  const { reversals, entries } = await MonthPartitionsRepository.acrossTheCut(db, monthStart(before));
  if (reversals > 0) {
    throw new ArchiveRefusal(
      `${reversals} reversals and the transfers they name lie on both sides of ${before}: ` +
        'archive up to a month that keeps each pair on one side',
    );
  }
  if (entries > 0) {
    throw new ArchiveRefusal(`${entries} ledger entries lie on the other side of ${before} from their transaction`);
  }
}

async function archiveMonth(db: ClientBase, month: Month, tables: ArchivedTable[], dir: string): Promise<MonthResult> {
  const from = monthStart(month);
  const to = monthStart(nextMonth(month));
  await beginTransaction(db);
  try {
    await ArchiveScratchRepository.prepare(db);
    await MonthPartitionsRepository.lock(db, tables, month);
    if (tables.includes('ledger_entries')) {
      const interleaved = await MonthPartitionsRepository.interleavedAccounts(db, month, from, to);
      if (interleaved > 0) {
        throw new ArchiveRefusal(
          `${month}: the chains of ${interleaved} accounts run out of the month and back into it ` +
            '(entries of another month written between two of its own), so no cut at its end holds them',
        );
      }
    }
    const directory = monthDirectory(dir, month);
    await makeDirectory(directory);
    const files: ArchiveFile[] = [];
    for (const table of ARCHIVED_TABLES) {
      const path = join(directory, tableFile(table));
      const rows = await writeLines(path, tables.includes(table) ? partitionRows(db, table, month) : nothing());
      files.push({ table, file: tableFile(table), rows, sha256: await sha256File(path) });
    }
    const unreadable = await loadFiles(db, directory, files);
    if (unreadable.length > 0) throw new Error(`${month}: the files read back wrong: ${unreadable.join('; ')}`);
    for (const table of tables) {
      const differences = await ArchiveScratchRepository.differencesFromPartition(db, table, month);
      if (differences > 0) throw new Error(`${month}: ${table} read back from its file differs in ${differences} rows`);
    }
    const checkpoints = await ArchiveScratchRepository.checkpoints(db);
    const manifest: ArchiveManifest = {
      format: MANIFEST_FORMAT,
      month,
      from: from.toISOString(),
      to: to.toISOString(),
      archivedAt: new Date().toISOString(),
      files,
      checkpoints,
    };
    const manifestSha256 = await writeManifest(directory, manifest);
    const [transactions, ledgerEntries] = ARCHIVED_TABLES.map((table) => files.find((f) => f.table === table)!.rows);
    await ArchivedMonthsRepository.insert(db, {
      month,
      transactions: String(transactions),
      ledgerEntries: String(ledgerEntries),
      manifestSha256,
    });
    await LedgerCheckpointsRepository.insert(db, month, checkpoints);
    const problems = await checkLoaded(db, manifest);
    if (problems.length > 0) throw new Error(`${month}: the archive does not verify: ${problems.join('; ')}`);
    for (const table of tables) await MonthPartitionsRepository.detachAndDrop(db, table, month);
    await commitTransaction(db);
    return { month, outcome: 'archived', transactions, ledgerEntries };
  } catch (error) {
    await rollbackQuietly(db);
    throw error;
  }
}

function partitionRows(db: ClientBase, table: ArchivedTable, month: Month): AsyncGenerator<string[]> {
  return MonthPartitionsRepository.rows(db, table, month, BATCH);
}

async function* nothing(): AsyncGenerator<string[]> {}

/** Reads the files back into the scratch tables, each checked against its SHA-256 and row count first. */
async function loadFiles(db: ClientBase, directory: string, files: ArchiveFile[]): Promise<string[]> {
  const problems: string[] = [];
  for (const file of files) {
    const path = join(directory, file.file);
    if (!existsSync(path)) problems.push(`${file.file} is missing`);
    else if ((await sha256File(path)) !== file.sha256)
      problems.push(`${file.file}: SHA-256 does not match the manifest`);
  }
  if (problems.length > 0) return problems;
  await ArchiveScratchRepository.prepare(db);
  for (const file of files) {
    for await (const lines of readLines(join(directory, file.file), BATCH)) {
      await ArchiveScratchRepository.load(db, file.table, lines);
    }
    const rows = await ArchiveScratchRepository.count(db, file.table);
    if (rows !== file.rows) problems.push(`${file.file}: ${rows} rows, the manifest says ${file.rows}`);
  }
  return problems;
}

const FINDING_TEXT: Record<string, string> = {
  brokenLinks: 'ledger entries whose hash does not follow from the entry before it',
  brokenBalances: 'ledger entries whose balances do not follow from the entry before it',
  entriesOutsideTheMonth: 'ledger entries outside the month',
  headsUnlikeTheManifest: "accounts whose chain head is not the manifest's",
  brokenTransactions: 'transactions whose content hash does not match the row',
  transactionsOutsideTheMonth: 'transactions outside the month',
  startsUnlinked: "accounts whose chain does not start at its head before the month (live or an archived month's)",
  checkpointsUnlikeTheDatabase: 'accounts whose chain head at the cut is not the one the database kept',
};

function described(findings: ScratchFindings): string[] {
  return Object.entries(findings)
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${count} ${FINDING_TEXT[name] ?? name}`);
}

/** The loaded month against its manifest, its hash functions and the chain heads around it. */
async function checkLoaded(db: ClientBase, manifest: ArchiveManifest): Promise<string[]> {
  const checkpoints: AccountCheckpoint[] = manifest.checkpoints;
  const from = new Date(manifest.from);
  const to = new Date(manifest.to);
  return [
    ...described(await ArchiveScratchRepository.findings(db, checkpoints, from, to)),
    ...described(await ArchiveScratchRepository.links(db, checkpoints, manifest.month)),
  ];
}

/**
 * An archived month's files against the manifest whose SHA-256 the database kept, then loaded and
 * checked like before the drop. The problems found; none: the month verifies. Leaves the rows in
 * the scratch tables (a restore inserts them from there).
 */
export async function verifyArchivedMonth(
  db: ClientBase,
  dir: string,
  month: Month,
  manifestSha256: string,
): Promise<string[]> {
  const directory = monthDirectory(dir, month);
  const read = await readManifest(directory);
  if (!read) return [`no manifest.json in ${directory}`];
  const { manifest, sha256 } = read;
  if (sha256 !== manifestSha256) return ['manifest.json is not the one archived (its SHA-256 differs)'];
  if (manifest.format !== MANIFEST_FORMAT || manifest.month !== month) return ["manifest.json is not this month's"];
  const problems = await loadFiles(db, directory, manifest.files);
  if (problems.length > 0) return problems;
  return checkLoaded(db, manifest);
}

/** Brings an archived month back into the live tables, after verifying its files; marks it live. */
export async function restoreMonth(db: ClientBase, dir: string, month: Month): Promise<MonthResult> {
  const archived = await ArchivedMonthsRepository.find(db, month);
  if (!archived) {
    const live = (await partitionsBefore(db, nextMonth(month))).has(month);
    if (live) return { month, outcome: 'already-live', transactions: 0, ledgerEntries: 0 };
    throw new ArchiveRefusal(`${month} is not archived`);
  }
  const from = monthStart(month);
  const to = monthStart(nextMonth(month));
  await beginTransaction(db);
  try {
    const problems = await verifyArchivedMonth(db, dir, month, archived.manifestSha256);
    if (problems.length > 0) {
      throw new ArchiveRefusal(`${month} does not verify, nothing restored: ${problems.join('; ')}`);
    }
    const restored: Record<ArchivedTable, number> = { transactions: 0, ledger_entries: 0 };
    for (const table of ARCHIVED_TABLES) {
      await MonthPartitionsRepository.ensure(db, table, from, to);
      restored[table] = await ArchiveScratchRepository.restore(db, table);
      const differences = await ArchiveScratchRepository.differencesFromPartition(db, table, month);
      if (differences > 0) throw new Error(`${month}: ${table} restored differs from its file in ${differences} rows`);
    }
    await ArchivedMonthsRepository.remove(db, month);
    await commitTransaction(db);
    return { month, outcome: 'restored', transactions: restored.transactions, ledgerEntries: restored.ledger_entries };
  } catch (error) {
    await rollbackQuietly(db);
    throw error;
  }
}
