/**
 * npm run archive -- --before <YYYY-MM> [--to <DIR>] [--force]
 * npm run archive -- --restore [<DIR>] --month <YYYY-MM>
 *
 * Archives every closed monthly partition of transactions and ledger_entries before a month, and
 * older than RETENTION_YEARS (default 8) unless --force, to DIR/<YYYY-MM>/ (gzip files and a
 * manifest with row counts, SHA-256s and each account's chain head at the cut); each partition is
 * dropped only after its files were read back and verified. A month archived before is skipped.
 * --restore verifies a month's files and brings it back into the live tables. DIR defaults to
 * DATA_DIR/archive. Prints a JSON summary; exits 0 when done, 1 when refused (nothing changed,
 * the reason on stderr), 2 when it could not run. Works as the owner role (DATABASE_OWNER_URL,
 * else DATABASE_URL, else the embedded database's owner). See docs/operations.md "Archiving history".
 */
import { parseArgs } from 'node:util';
import { type Month, isMonth } from '../../src/archive/archive-month';
import { ArchiveRefusal, archiveBefore, restoreMonth } from '../../src/archive/month-archive';
import { retentionYears } from '../../src/config/app-config';
import { DEFAULT_ARCHIVE_DIR, withDefaultValue } from '../lib/archive-directory';
import { CliUsageError, DATABASE_OPTIONS, DATABASE_USAGE, withCliDatabase } from '../lib/cli-database';

const USAGE = `Usage:
  npm run archive -- --before <YYYY-MM> [--to <DIR>] [--force]
  npm run archive -- --restore [<DIR>] --month <YYYY-MM>
DIR defaults to ${DEFAULT_ARCHIVE_DIR}.
${DATABASE_USAGE}`;

const OPTIONS = {
  ...DATABASE_OPTIONS,
  before: { type: 'string' },
  to: { type: 'string' },
  force: { type: 'boolean', default: false },
  restore: { type: 'string' },
  month: { type: 'string' },
} as const;

function readMonth(name: string, value: string | undefined): Month {
  if (value === undefined || !isMonth(value)) throw new CliUsageError(`--${name} <YYYY-MM> is required\n${USAGE}`);
  return value;
}

async function main(): Promise<number> {
  let args = process.argv.slice(2);
  for (const option of ['--to', '--restore']) args = withDefaultValue(args, option, DEFAULT_ARCHIVE_DIR);
  let values;
  try {
    ({ values } = parseArgs({ args, options: OPTIONS }));
  } catch (error) {
    throw new CliUsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const restoring = values.restore !== undefined;
  if (restoring === (values.before !== undefined)) throw new CliUsageError(`Give --before or --restore\n${USAGE}`);
  const month = restoring ? readMonth('month', values.month) : undefined;
  const before = restoring ? undefined : readMonth('before', values.before);
  const years = retentionYears();
  return withCliDatabase(
    values,
    async (client) => {
      const months = restoring
        ? [await restoreMonth(client, values.restore!, month!)]
        : await archiveBefore(client, {
            before: before!,
            dir: values.to ?? DEFAULT_ARCHIVE_DIR,
            force: values.force,
            retentionYears: years,
          });
      process.stdout.write(`${JSON.stringify({ months })}\n`);
      return 0;
    },
    'owner',
  );
}

// Exit explicitly: the embedded database's exit hook would otherwise end the process with 0.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof ArchiveRefusal) {
      console.error(`archive refused: ${reason}`);
      process.exit(1);
    }
    // 42501: a role that does not own the partitions (the service's) may not detach or drop them.
    const hint =
      (error as { code?: string }).code === '42501'
        ? ' (the archive works as the owner role: set DATABASE_OWNER_URL)'
        : '';
    console.error(error instanceof CliUsageError ? reason : `archive could not run: ${reason}${hint}`);
    process.exit(2);
  },
);
