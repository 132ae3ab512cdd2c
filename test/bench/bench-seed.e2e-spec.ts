import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { planSeed, seedLarge } from '../../scripts/lib/seed-large';
import { auditLedger } from '../../src/audit/ledger-audit';
import { withClient, withScratchDatabase } from '../support/db';

describe('the benchmark large seed', () => {
  it('rounds up to whole rounds of transfers', () => {
    expect(planSeed(100_000, 5_000_000)).toEqual({
      users: 100_000,
      rounds: 25,
      transactions: 2_500_000,
      ledgerEntries: 5_100_000,
    });
    expect(planSeed(10, 5)).toEqual({ users: 10, rounds: 0, transactions: 0, ledgerEntries: 10 });
  });

  it('writes users, transfers, entries and events that keep every ledger invariant, twice over', async () => {
    await withScratchDatabase(async (url) => {
      await withClient(url, async (db) => {
        const first = await seedLarge(db, 300, 2_000);
        const second = await seedLarge(db, 7, 100);
        expect([first.ledgerEntries, second.ledgerEntries]).toEqual([2_100, 105]);

        const counts = (
          await db.query(`SELECT (SELECT count(*) FROM users WHERE kind = 'USER')::int AS users,
                                 (SELECT count(*) FROM transactions)::int AS transactions,
                                 (SELECT count(*) FROM ledger_entries WHERE user_id > 0)::int AS entries,
                                 (SELECT count(*) FROM ledger_entries WHERE user_id <= 0)::int AS treasury,
                                 (SELECT count(*) FROM outbox_events WHERE outbox_published(xid, id))::int AS published,
                                 (SELECT count(*) FROM transactions WHERE created_at >= (
                                    SELECT min(range_start) FROM partition_ranges('outbox_events')))::int AS kept,
                                 (SELECT extract(epoch FROM now() - min(range_start)) / 86400
                                  FROM partition_ranges('outbox_events'))::float8 AS outboxDays`)
        ).rows[0];
        // Every seeded opening balance is issued by the treasury, one treasury debit each.
        expect(counts).toMatchObject({ users: 307, transactions: 949, entries: 2_205, treasury: 307 });
        // Events only for the days the outbox keeps (OUTBOX_RETENTION_DAYS, 7): older days' partitions
        // are gone in a service with this much history. Each of those days' transfers has its event.
        expect(counts.outboxdays).toBeGreaterThan(7);
        expect(counts.outboxdays).toBeLessThanOrEqual(8);
        expect(counts.kept).toBeGreaterThan(0);
        expect(counts.published).toBe(counts.kept);
        expect(await findLedgerViolations(db)).toEqual([]);
        // The seeded history is chained like the service's own: the audit finds nothing wrong.
        const audit = await auditLedger(db);
        expect(audit.ok).toBe(true);

        // The foreign-key triggers were skipped while loading: the references must hold anyway.
        const dangling = await db.query(`
          SELECT l.id FROM ledger_entries l
          LEFT JOIN users u ON u.id = l.user_id
          LEFT JOIN transactions t ON t.id = l.transaction_id
          WHERE u.id IS NULL OR (l.transaction_id IS NOT NULL AND t.id IS NULL)`);
        expect(dangling.rows).toEqual([]);

        // The indexes dropped for the load are back, and new rows still get fresh ids.
        const indexes = await db.query(
          `SELECT indexname FROM pg_indexes WHERE tablename IN ('ledger_entries', 'transactions') ORDER BY indexname`,
        );
        expect(indexes.rows.map((row) => row.indexname)).toEqual(
          expect.arrayContaining(['ix_ledger_entries_user_created', 'ix_transactions_sender_created']),
        );
        const next = await db.query(
          `INSERT INTO users (reference_id, name, upi_id, phone_number, balance)
           VALUES (gen_random_uuid(), 'After', 'after.seed@okbank', '9000000000', 0) RETURNING id::int`,
        );
        expect(next.rows[0].id).toBe(308);
      });
    });
  });
});
