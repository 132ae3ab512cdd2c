import { DataSource } from 'typeorm';
import { LedgerEntriesWithoutPrimaryKey1764036000000 } from '../../migrations/1764036000000-ledger-entries-without-primary-key';
import { migrateUpTo, withClient, withDatabaseBefore } from '../support/db';

/** ledger_entries' constraints and indexes, each as PostgreSQL prints it (NOT NULLs aside). */
const KEYS = `
  SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(oid) AS line FROM pg_constraint
  WHERE conrelid = 'ledger_entries'::regclass AND contype <> 'n'
  UNION ALL
  SELECT 'index ' || indexname || ' ' || indexdef FROM pg_indexes WHERE tablename = 'ledger_entries'
  ORDER BY 1`;

describe('LedgerEntriesWithoutPrimaryKey: the ledger keeps one index', () => {
  it('drops pk_ledger_entries and its down puts the same key back', async () => {
    await withDatabaseBefore(LedgerEntriesWithoutPrimaryKey1764036000000, async (url) => {
      const before = await withClient(url, async (db) => (await db.query(KEYS)).rows.map((row) => row.line));
      expect(before).toEqual(
        expect.arrayContaining([
          'constraint pk_ledger_entries PRIMARY KEY (id, created_at)',
          expect.stringMatching(/^index ix_ledger_entries_user_created /),
        ]),
      );

      await migrateUpTo(url, () => true);
      const after = await withClient(url, async (db) => (await db.query(KEYS)).rows.map((row) => row.line));
      expect(after).toEqual(before.filter((line) => !/pk_ledger_entries/.test(line)));
      expect(after.filter((line) => line.startsWith('index '))).toEqual([
        expect.stringMatching(/^index ix_ledger_entries_user_created /),
      ]);

      const dataSource = new DataSource({ type: 'postgres', url, poolSize: 1 });
      await dataSource.initialize();
      try {
        const runner = dataSource.createQueryRunner();
        await new LedgerEntriesWithoutPrimaryKey1764036000000().down(runner);
        await runner.release();
      } finally {
        await dataSource.destroy();
      }
      expect(await withClient(url, async (db) => (await db.query(KEYS)).rows.map((row) => row.line))).toEqual(before);
    });
  }, 60_000);
});
