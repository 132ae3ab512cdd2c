/**
 * npm run audit -- [--database-url postgres://...]
 *
 * Verifies the ledger (src/audit/ledger-audit.ts): every account's hash chain and running balance,
 * balances against entries, zero-sum transactions, global sum 0 with the treasury. Prints the JSON
 * report and exits 0 when ok, 1 when anything is broken, 2 when the audit could not run.
 * The database is --database-url, else DATABASE_URL, else the embedded one in DATA_DIR (./.data),
 * which only this process may then use: stop the service first, or ask GET /api/v1/admin/audit.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { auditLedger, auditReportJson } from '../../src/audit/ledger-audit';
import { EmbeddedDatabase } from '../../src/database/embedded-postgres';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { 'database-url': { type: 'string' } } });
  let url = values['database-url'] ?? process.env.DATABASE_URL;
  let embedded: EmbeddedDatabase | undefined;
  if (!url) {
    Logger.overrideLogger(['error']);
    embedded = new EmbeddedDatabase({ dataDir: resolve(process.env.DATA_DIR ?? './.data') });
    url = await embedded.start();
  }
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    const report = await auditLedger(client);
    process.stdout.write(`${auditReportJson(report)}\n`);
    return report.ok ? 0 : 1;
  } finally {
    await client.end().catch(() => undefined);
    await embedded?.stop();
  }
}

// Exit explicitly: the embedded database's exit hook would otherwise end the process with 0.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`audit could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
