/**
 * npm run admin -- grant|revoke|unlock <upiId> [--database-url-file <path>] | --help
 *
 * grant / revoke: ROLE_ADMIN on an existing account, recorded in role_grants with who (the OS
 * user running this, as "cli:<name>") and when; running services see it within a second.
 * unlock: clears every login lock and failure count of the UPI ID (the way out of a permanent
 * lock, after the owner's identity was checked out of band).
 * The database: see DATABASE_USAGE; beside a running service it uses the service's embedded
 * database, so granting the first admin needs no restart. Exits 0 when done, 1 when the account
 * does not exist, 2 on bad usage or when the command could not run.
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import type { Client } from 'pg';
import { ROLE_ADMIN } from '../../src/access/authenticated-user';
import { LoginAttemptsRepository } from '../../src/auth/login-attempts.repository';
import { setRoleIn } from '../../src/auth/role-grants.service';
import { UPI_ID_PATTERN } from '../../src/users/upi-id';
import { CliUsageError, DATABASE_OPTIONS, DATABASE_USAGE, withCliDatabase } from '../lib/cli-database';

const USAGE = `usage: npm run admin -- grant|revoke|unlock <upiId> [--database-url-file <path>]

  grant <upiId>    give the account ROLE_ADMIN (running services see it within a second)
  revoke <upiId>   take ROLE_ADMIN back
  unlock <upiId>   clear the login locks and failure counts of the UPI ID

${DATABASE_USAGE}

Exits 0 when done, 1 when the account does not exist, 2 on bad usage or when it could not run.`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { ...DATABASE_OPTIONS, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [command, upiId] = positionals;
  if (!['grant', 'revoke', 'unlock'].includes(command) || !upiId || !UPI_ID_PATTERN.test(upiId)) {
    throw new CliUsageError('expected grant, revoke or unlock and a UPI ID');
  }
  return withCliDatabase(values, (client) =>
    command === 'unlock' ? unlock(client, upiId) : setRole(client, upiId, command === 'grant'),
  );
}

async function setRole(client: Client, upiId: string, granted: boolean): Promise<number> {
  await client.query('BEGIN');
  try {
    const result = await setRoleIn(client, { upiId }, ROLE_ADMIN, granted, `cli:${userInfo().username}`);
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
  const cleared = await LoginAttemptsRepository.clearAll(client, upiId);
  console.log(`Cleared ${cleared} login lock row(s) of ${upiId.toLowerCase()}`);
  return 0;
}

// Exit explicitly: the embedded database's exit hook would otherwise end the process with 0.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (isUsageError(error)) console.error(`${error.message}\n\n${USAGE}`);
    else console.error(`admin could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);

/** Ours, or parseArgs' (an unknown option, a missing value). */
function isUsageError(error: unknown): error is Error {
  return (
    error instanceof CliUsageError || (error as { code?: string } | null)?.code?.startsWith('ERR_PARSE_ARGS') === true
  );
}
