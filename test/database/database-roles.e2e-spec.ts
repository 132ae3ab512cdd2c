import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { EMBEDDED_DATABASE } from '../../src/database/database.module';
import type { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { startTestApp, type TestApp } from '../support/test-app';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { uniqueUpiId } from '../support/api-client';

const query = async (url: string, sql: string) => {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
};
const refusal = (url: string, sql: string) =>
  query(url, sql).then(
    () => undefined,
    (error: { code?: string; message: string }) => ({ code: error.code, message: error.message }),
  );

/** The embedded default: the service runs as a role that owns nothing and cannot switch the ledger's triggers off. */
describe('least privilege (embedded default)', () => {
  const dataDir = makeTempDir('payments-roles', { forPostgres: true });
  let t: TestApp | undefined;
  let inspector: EmbeddedDatabase;
  let superuserUrl: string;

  beforeAll(async () => {
    t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir, JWT_SECRET: '' });
    // The service's own embedded database, for its URLs (the test administers it as the superuser).
    inspector = t.app.get<EmbeddedDatabase>(EMBEDDED_DATABASE);
    superuserUrl = inspector.url;
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    removeTempDir(dataDir);
  });

  it('keeps a random password per DATA_DIR in a 0600 file, and no trust authentication', async () => {
    const file = join(dataDir, 'database-password');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const hba = readFileSync(join(dataDir, 'postgres', 'pg_hba.conf'), 'utf8');
    expect(hba).not.toMatch(/^[^#]*\btrust\b/m);
    expect(hba.split('\n').filter((line) => line && !line.startsWith('#'))).toEqual([
      'host all all 127.0.0.1/32 scram-sha-256',
      'host replication postgres 127.0.0.1/32 scram-sha-256',
    ]);
    expect(superuserUrl).not.toContain(':postgres@');
    const url = new URL(superuserUrl);
    url.password = 'postgres';
    expect(await refusal(url.toString(), 'SELECT 1')).toEqual(expect.objectContaining({ code: '28P01' }));
  });

  it('keeps the secrets private to the service, and gives the database its own private subdirectory', () => {
    const secret = statSync(join(dataDir, 'jwt-secret'));
    expect({ uid: secret.uid, mode: secret.mode & 0o777 }).toEqual({ uid: process.getuid!(), mode: 0o600 });
    const databaseDir = statSync(join(dataDir, 'postgres'));
    expect(databaseDir.mode & 0o777).toBe(0o700);
    // As root, PostgreSQL runs as the postgres OS user, which must own its directory (and root keeps the secrets).
    const expectedOwner =
      process.getuid!() === 0 ? Number(execFileSync('id', ['-u', 'postgres']).toString()) : process.getuid!();
    expect(databaseDir.uid).toBe(expectedOwner);
  });

  it('runs the service as a role that is no superuser, owns no table, and may not set session_replication_role', async () => {
    const serviceUrl = inspector.serviceUrl;
    const role = await query(
      serviceUrl,
      `SELECT current_user AS name, rolsuper, rolcreaterole, rolcreatedb,
              (SELECT count(*)::int FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace
                 AND pg_has_role(current_user, c.relowner, 'USAGE')) AS owned
         FROM pg_roles WHERE rolname = current_user`,
    );
    expect(role.rows[0]).toEqual({
      name: 'payments_app',
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      owned: 0,
    });
    expect(await refusal(serviceUrl, 'SET session_replication_role = replica')).toEqual(
      expect.objectContaining({ code: '42501' }),
    );
    expect(await refusal(serviceUrl, 'ALTER TABLE ledger_entries DISABLE TRIGGER USER')).toEqual(
      expect.objectContaining({ code: '42501' }),
    );
    expect(await refusal(serviceUrl, 'CREATE TABLE sneaky (id int)')).toEqual(
      expect.objectContaining({ code: '42501' }),
    );
    // Every table was created by the owner role, through its migrations.
    const owners = await query(
      superuserUrl,
      `SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p', 'S')`,
    );
    expect(owners.rows).toEqual([{ owner: 'payments_owner' }]);
  });

  it('serves money movements with that role', async () => {
    const alice = await t!.api.registerUser({ upiId: uniqueUpiId('alice'), balance: 100 });
    const bob = await t!.api.registerUser({ upiId: uniqueUpiId('bob'), balance: 0 });
    const sent = await t!.api.transfer(alice, bob.upiId, 25);
    expect(sent.status).toBe(201);
    const balance = await query(inspector.serviceUrl, `SELECT balance::text FROM users WHERE upi_id = '${bob.upiId}'`);
    expect(balance.rows).toEqual([{ balance: '25.0000' }]);
  });

  it('lets the service use a table a later migration creates, with no grant of its own', async () => {
    await query(inspector.ownerUrl, 'CREATE TABLE later_feature (id bigserial PRIMARY KEY, note text)');
    try {
      await query(inspector.serviceUrl, `INSERT INTO later_feature (note) VALUES ('usable')`);
      expect((await query(inspector.serviceUrl, 'SELECT note FROM later_feature')).rows).toEqual([{ note: 'usable' }]);
    } finally {
      await query(inspector.ownerUrl, 'DROP TABLE later_feature');
    }
  });
});

/** A DATA_DIR from before the roles: superuser postgres/postgres, everything owned by it. */
describe('an embedded DATA_DIR from an older version', () => {
  const dataDir = makeTempDir('payments-roles-legacy', { forPostgres: true });
  afterAll(() => removeTempDir(dataDir));

  it('is converted in place at the first start: new password, owner and service roles, data kept', async () => {
    const before = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir });
    const alice = await before.api.registerUser({ balance: 42 }).catch(async (error: unknown) => {
      await before.close();
      throw error;
    });
    const superuserUrl = before.app.get<EmbeddedDatabase>(EMBEDDED_DATABASE).url;
    // Back to what older versions left behind.
    await query(
      superuserUrl,
      `REASSIGN OWNED BY payments_owner TO postgres; DROP OWNED BY payments_app; ALTER ROLE postgres PASSWORD 'postgres'`,
    );
    const legacyUrl = new URL(superuserUrl);
    legacyUrl.password = 'postgres';
    legacyUrl.pathname = '/postgres';
    await query(legacyUrl.toString(), 'DROP ROLE payments_app; DROP ROLE payments_owner');
    await before.close();
    rmSync(join(dataDir, 'database-password'));

    const after = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir });
    try {
      const embedded = after.app.get<EmbeddedDatabase>(EMBEDDED_DATABASE);
      expect(embedded.url).not.toContain(':postgres@');
      const legacy = new URL(embedded.url);
      legacy.password = 'postgres';
      expect(await refusal(legacy.toString(), 'SELECT 1')).toEqual(expect.objectContaining({ code: '28P01' }));
      const owners = await query(
        embedded.url,
        `SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class
          WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p', 'S')`,
      );
      expect(owners.rows).toEqual([{ owner: 'payments_owner' }]);
      expect(await refusal(embedded.serviceUrl, 'SET session_replication_role = replica')).toEqual(
        expect.objectContaining({ code: '42501' }),
      );
      const token = await after.api.login(alice.upiId);
      const read = await after.api.get(`/api/v1/users/${alice.referenceId}`, token);
      expect({ status: read.status, balance: read.body.balance }).toEqual({ status: 200, balance: 42 });
    } finally {
      await after.close();
    }
  }, 120_000);
});
