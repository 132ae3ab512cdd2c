/**
 * npm run audit -- [--database-url-file <path>]
 *
 * Verifies the ledger (src/audit/ledger-audit.ts): every account's hash chain and running balance,
 * balances against entries, zero-sum transactions, global sum 0 with the treasury. Prints the JSON
 * report and exits 0 when ok, 1 when anything is broken, 2 when the audit could not run.
 * The database: see DATABASE_USAGE (beside a running service, the service's embedded database);
 * GET /api/v1/admin/audit runs the same check.
 */
import { parseArgs } from 'node:util';
import { auditLedger, auditReportJson } from '../../src/audit/ledger-audit';
import { CliUsageError, DATABASE_OPTIONS, withCliDatabase } from '../lib/cli-database';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: DATABASE_OPTIONS });
  return withCliDatabase(values, async (client) => {
    const report = await auditLedger(client);
    process.stdout.write(`${auditReportJson(report)}\n`);
    return report.ok ? 0 : 1;
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
