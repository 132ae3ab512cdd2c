/**
 * npm run admin -- grant <upiId> | revoke <upiId> | unlock <upiId> [--database-url postgres://...]
 *
 * grant / revoke: ROLE_ADMIN on an existing account, recorded in role_grants with who (the OS
 * user running this, as "cli:<name>") and when; running services see it within a second.
 * unlock: clears every login lock and failure count of the UPI ID (the way out of a permanent
 * lock, after the owner's identity was checked out of band).
 * The database is --database-url, else DATABASE_URL, else the embedded one in DATA_DIR (./.data),
 * which only this process may then use: stop the service first. Exits 0 when done, 1 when the
 * account does not exist, 2 on bad usage or when the command could not run.
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import type { Client } from 'pg';
import { ROLE_ADMIN } from '../../src/access/authenticated-user';
import { setRoleIn } from '../../src/auth/role-grants.service';
import { UPI_ID_PATTERN } from '../../src/users/upi-id';
import { withCliDatabase } from '../lib/cli-database';

const USAGE = 'usage: npm run admin -- grant|revoke|unlock <upiId> [--database-url postgres://...]';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { 'database-url': { type: 'string' } },
    allowPositionals: true,
  });
  const [command, upiId] = positionals;
  if (!['grant', 'revoke', 'unlock'].includes(command) || !upiId || !UPI_ID_PATTERN.test(upiId)) {
    console.error(USAGE);
    return 2;
  }
  return withCliDatabase(values['database-url'], (client) =>
    command === 'unlock' ? unlock(client, upiId) : setRole(client, upiId, command === 'grant'),
  );
}

async function setRole(client: Client, upiId: string, granted: boolean): Promise<number> {
  const query = async (sql: string, params: unknown[]) => (await client.query(sql, params)).rows as unknown[];
  await client.query('BEGIN');
  try {
    const result = await setRoleIn(query, { upiId }, ROLE_ADMIN, granted, `cli:${userInfo().username}`);
    await client.query('COMMIT');
    if (!result) {
      console.error(`No registered user with UPI ID ${upiId}`);
      return 1;
    }
    console.log(`${ROLE_ADMIN} ${result.outcome} for ${result.upiId} (${result.referenceId})`);
    return 0;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

async function unlock(client: Client, upiId: string): Promise<number> {
  const result = await client.query('DELETE FROM login_attempts WHERE upi_id = lower($1)', [upiId]);
  console.log(`Cleared ${result.rowCount ?? 0} login lock row(s) of ${upiId.toLowerCase()}`);
  return 0;
}

// Exit explicitly: the embedded database's exit hook would otherwise end the process with 0.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`admin could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
