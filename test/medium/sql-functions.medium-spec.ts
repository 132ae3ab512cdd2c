import type { Client } from 'pg';
import { readSqlFunctionFiles, sqlDefinitions } from '../../src/database/sql-functions';
import { connectTestDatabase } from '../support/db';

/**
 * A file's functions without its triggers: replacing a trigger here, even in a transaction rolled
 * back, would lock its table against the medium tests running beside this one.
 */
function functionsOnly(sql: string): string {
  return sql.replace(/^(CREATE OR REPLACE TRIGGER|ALTER TABLE)[^;]*;/gm, '');
}

/** The database runs exactly the canonical files: no function was changed behind their back. */
describe('database functions match their canonical files', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  const files = readSqlFunctionFiles();

  it('records the checksum of every file', async () => {
    const rows = await db.query<{ name: string; checksum: string }>('SELECT name, checksum FROM sql_functions');
    const recorded = Object.fromEntries(rows.rows.map((row) => [row.name, row.checksum]));
    for (const file of files) expect([file.name, recorded[file.name]]).toEqual([file.name, file.checksum]);
  });

  it.each(files.map((file) => [file.name, file]))('%s in the database is the file', async (_name, file) => {
    // Applied again into a scratch schema, then both definitions are compared as PostgreSQL prints them.
    await db.query('BEGIN');
    try {
      await db.query('CREATE SCHEMA medium_sql_check');
      await db.query('SET LOCAL search_path = medium_sql_check, public');
      await db.query(functionsOnly(file.sql));
      const definitions = await db.query<{ schema: string; def: string }>(
        `SELECT n.nspname AS schema, pg_get_functiondef(p.oid) AS def
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE p.proname = $1 AND n.nspname IN ('public', 'medium_sql_check')`,
        [file.name],
      );
      const bySchema = Object.fromEntries(definitions.rows.map((row) => [row.schema, row.def]));
      expect(Object.keys(bySchema).sort()).toEqual(['medium_sql_check', 'public']);
      expect(bySchema.public).toBe(bySchema.medium_sql_check.replace('medium_sql_check.', 'public.'));
    } finally {
      await db.query('ROLLBACK');
    }
  });
});

/** What the migrations and the files leave in the database: nothing a file does not define. */
describe('every database function and trigger has its canonical file', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  const defined = readSqlFunctionFiles().map((file) => sqlDefinitions(file.sql));
  const definedFunctions = defined.flatMap((file) => file.functions).sort();
  const definedTriggers = defined.flatMap((file) => file.triggers).sort();

  it("each function in the public schema (an extension's aside) is defined by a file, once", async () => {
    const { rows } = await db.query<{ name: string }>(
      `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public'
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
       ORDER BY p.proname`,
    );
    expect(rows.map((row) => row.name).sort()).toEqual(definedFunctions);
  });

  it("each trigger on a public table (PostgreSQL's own constraint triggers aside) is defined by a file, once", async () => {
    const { rows } = await db.query<{ name: string }>(
      `SELECT c.relname || '.' || t.tgname AS name
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND NOT t.tgisinternal AND NOT c.relispartition
       ORDER BY 1`,
    );
    expect(rows.map((row) => row.name).sort()).toEqual(definedTriggers);
  });

  it('the sealing trigger still fires under session_replication_role = replica (bulk loads)', async () => {
    // On the partitioned table and on each partition's clone of it.
    const { rows } = await db.query<{ enabled: string }>(
      `SELECT DISTINCT tgenabled AS enabled FROM pg_trigger WHERE tgname = 'trg_transactions_seal'`,
    );
    expect(rows).toEqual([{ enabled: 'A' }]);
  });
});

describe('iso_millis', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  it('writes a time as the bodies do: UTC, ISO 8601, three decimals, whatever the session zone', async () => {
    await db.query(`SET TIME ZONE 'Asia/Kolkata'`);
    const { rows } = await db.query<{ at: string; whole: string }>(
      `SELECT iso_millis('2026-11-23T10:21:15.1+05:30') AS at, iso_millis('2026-01-02T03:04:05Z') AS whole`,
    );
    expect(rows[0]).toEqual({ at: '2026-11-23T04:51:15.100Z', whole: '2026-01-02T03:04:05.000Z' });
  });
});
