/**
 * npm run audit -- [--database-url postgres://...]
 *
 * Verifies the ledger (src/audit/ledger-audit.ts): every account's hash chain and running balance,
 * balances against entries, zero-sum transactions, global sum 0 with the treasury. Prints the JSON
 * report and exits 0 when ok, 1 when anything is broken, 2 when the audit could not run.
 * The database is --database-url, else DATABASE_URL, else the embedded one in DATA_DIR (./.data),
 * which only this process may then use: stop the service first, or ask GET /api/v1/admin/audit.
 */
import { parseArgs } from 'node:util';
import { auditLedger, auditReportJson } from '../../src/audit/ledger-audit';
import { withCliDatabase } from '../lib/cli-database';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { 'database-url': { type: 'string' } } });
  return withCliDatabase(values['database-url'], async (client) => {
    const report = await auditLedger(client);
    process.stdout.write(`${auditReportJson(report)}\n`);
    return report.ok ? 0 : 1;
  });
}

// Exit explicitly: the embedded database's exit hook would otherwise end the process with 0.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`audit could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
