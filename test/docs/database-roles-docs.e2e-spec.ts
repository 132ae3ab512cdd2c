import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import { testUrl, withClient } from '../support/db';
import { startTestApp } from '../support/test-app';

/** The SQL blocks of docs/database-roles.md under one heading, with the roles and database renamed for this run. */
function documentedSql(heading: string, names: Record<string, string>): string[] {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'database-roles.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith(heading));
  if (!section) throw new Error(`docs/database-roles.md has no section "${heading}"`);
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) =>
    Object.entries(names).reduce((sql, [from, to]) => sql.replaceAll(from, to), match[1]),
  );
}

/** One statement at a time, as psql sends them (CREATE DATABASE refuses to share a query string). */
async function runAs(url: string, sql: string): Promise<void> {
  await withClient(url, async (client) => {
    const statements = sql
      .replace(/--.*$/gm, '')
      .split(/;\s*$/m)
      .map((statement) => statement.trim())
      .filter(Boolean);
    for (const statement of statements) await client.query(statement);
  });
}

/** Production, with the privilege check on (the harness turns it off for its own superuser). */
const PRODUCTION = { NODE_ENV: 'production', DATABASE_ALLOW_PRIVILEGED: 'false' };

const urlFor = (role: string, password: string, database: string) => {
  const url = new URL(testUrl());
  url.username = role;
  url.password = password;
  url.pathname = `/${database}`;
  return url.toString();
};

/** What an operator of a managed PostgreSQL follows, run as written: the service then starts in production. */
describe('docs/database-roles.md', () => {
  const suffix = `${process.pid}_${Date.now()}`;
  const names = {
    payments_owner: `docs_owner_${suffix}`,
    payments_app: `docs_app_${suffix}`,
    'DATABASE payments': `DATABASE docs_${suffix}`,
    'owner-password-here': 'owner-secret',
    'service-password-here': 'service-secret',
  };
  const database = `docs_${suffix}`;
  const ownerUrl = urlFor(names.payments_owner, 'owner-secret', database);
  const serviceUrl = urlFor(names.payments_app, 'service-secret', database);

  afterAll(async () => {
    await withClient(testUrl(), async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${names.payments_app}`);
      await admin.query(`DROP ROLE IF EXISTS ${names.payments_owner}`);
    });
  });

  it('sets up two roles with which migrations run as the owner and the service starts in production', async () => {
    const [cluster, inDatabase] = documentedSql('Once, as the administrator', names);
    const superuser = new URL(testUrl());
    await runAs(testUrl(), cluster);
    await runAs(
      urlFor(decodeURIComponent(superuser.username), decodeURIComponent(superuser.password), database),
      inDatabase,
    );
    await runAs(ownerUrl, documentedSql('Once, as the owner', names).join('\n'));

    // The service role alone cannot create the schema, and says which variable is missing.
    await expect(startTestApp({ ...PRODUCTION, DATABASE_URL: serviceUrl })).rejects.toThrow(
      /^DATABASE_URL: the role may not apply the pending migrations \(permission denied.*set DATABASE_OWNER_URL/,
    );
    // With the owner's URL the migrations run at boot as the owner, and the service serves as its own role.
    const t = await startTestApp({ ...PRODUCTION, DATABASE_URL: serviceUrl, DATABASE_OWNER_URL: ownerUrl });
    try {
      // Production registers with a PIN and no opening balance (money enters by deposits).
      const upiId = `roles.${Date.now()}@okbank`;
      const user = { name: 'Alice', upiId, phoneNumber: '9876500001', balance: 0, pin: '4826' };
      const registered = await t.api.post('/api/v1/users', user);
      expect(registered.status).toBe(201);
      expect((await t.api.post('/api/v1/auth/login', { upiId, pin: '4826' })).status).toBe(200);
    } finally {
      await t.close();
    }
    // Later instances need no owner at all once the schema is there.
    await (await startTestApp({ ...PRODUCTION, DATABASE_URL: serviceUrl })).close();
    const service = new Client({ connectionString: serviceUrl });
    await service.connect();
    try {
      await expect(service.query('SET session_replication_role = replica')).rejects.toMatchObject({ code: '42501' });
      await expect(service.query('ALTER TABLE ledger_entries DISABLE TRIGGER USER')).rejects.toMatchObject({
        code: '42501',
      });
    } finally {
      await service.end();
    }
  }, 120_000);
});
