/**
 * npm run audit -- [--database-url-file <path>] [--archive [<DIR>]]
 *
 * Verifies the ledger (src/audit/ledger-audit.ts): every account's hash chain and running balance,
 * balances against entries, zero-sum transactions, global sum 0 with the treasury. Prints the JSON
 * report and exits 0 when ok, 1 when anything is broken, 2 when the audit could not run.
 * With --archive, the archived months' files in DIR (default: DATA_DIR/archive) too, reported
 * under "archive": each month's files, hashes and chain segments, linked to the live chain.
 * The database: see DATABASE_USAGE (beside a running service, the service's embedded database);
 * GET /api/v1/admin/audit runs the same check of the live tables.
 */
import { parseArgs } from 'node:util';
import { auditArchive, auditLedger, auditReportJson } from '../../src/audit/ledger-audit';
import { CliUsageError, DATABASE_OPTIONS, withCliDatabase } from '../lib/cli-database';
import { DEFAULT_ARCHIVE_DIR, withDefaultValue } from '../lib/archive-directory';

async function main(): Promise<number> {
  const args = withDefaultValue(process.argv.slice(2), '--archive', DEFAULT_ARCHIVE_DIR);
  const { values } = parseArgs({ args, options: { ...DATABASE_OPTIONS, archive: { type: 'string' } } });
  return withCliDatabase(values, async (client) => {
    const archive = values.archive === undefined ? undefined : await auditArchive(client, values.archive);
    const report = await auditLedger(client);
    const text = auditReportJson(report);
    // The live report as it always reads, with the archive's findings as one more member at its end.
    process.stdout.write(archive ? `${text.slice(0, -1)},"archive":${JSON.stringify(archive)}}\n` : `${text}\n`);
    return report.ok && (archive?.ok ?? true) ? 0 : 1;
  });
}

// Exit explicitly: the embedded database's exit hook would otherwise end the process with 0.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(error instanceof CliUsageError ? reason : `audit could not run: ${reason}`);
    process.exit(2);
  },
);
