import { randomUUID } from 'node:crypto';
import { TreasuryReversalsHashChain1764000700000 } from '../../migrations/1764000700000-treasury-reversals-hash-chain';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { auditLedger } from '../../src/audit/ledger-audit';
import { migrateAllAndVerify, withClient, withDatabaseBefore } from '../support/db';

const TREASURY_MIGRATION = new TreasuryReversalsHashChain1764000700000().name;

describe('the treasury migration on existing data', () => {
  it('writes the treasury side of every opening credit and chains every entry: global sum 0, audit ok', async () => {
    // A database as the first round left it: migrated up to just before the treasury.
    await withDatabaseBefore(TreasuryReversalsHashChain1764000700000, async (url) => {
      const users: { id: string; balance: string }[] = [];
      await withClient(url, async (db) => {
        // Three users with opening credits and one transfer, written as the first round wrote them.
        for (const [upi, balance] of [
          ['old.alice@bank', '300.0000'],
          ['old.bob@bank', '0.5000'],
          ['old.carol@bank', '0.0000'],
        ] as const) {
          const inserted = await db.query(
            `INSERT INTO users (reference_id, name, upi_id, phone_number, balance)
             VALUES ($1, 'Old', $2, '9876543210', $3) RETURNING id`,
            [randomUUID(), upi, balance],
          );
          users.push({ id: inserted.rows[0].id, balance });
          if (balance !== '0.0000') {
            await db.query(
              `INSERT INTO ledger_entries (user_id, transaction_reference_id, entry_type, amount, balance_before, balance_after)
               VALUES ($1, $2, 'CREDIT', $3, 0, $3)`,
              [inserted.rows[0].id, randomUUID(), balance],
            );
          }
        }
        const [alice, bob] = users;
        const reference = randomUUID();
        const transfer = await db.query(
          `INSERT INTO transactions (reference_id, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount)
           VALUES ($1, $2, $3, 'old.alice@bank', 'old.bob@bank', 100) RETURNING id`,
          [reference, alice.id, bob.id],
        );
        await db.query(
          `INSERT INTO ledger_entries (user_id, transaction_id, transaction_reference_id, entry_type, amount, balance_before, balance_after)
           VALUES ($1, $3, $4, 'DEBIT', 100, 300, 200), ($2, $3, $4, 'CREDIT', 100, 0.5, 100.5)`,
          [alice.id, bob.id, transfer.rows[0].id, reference],
        );
        await db.query(
          `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload)
           VALUES ($1, 'TransferCompleted', 'old.alice@bank', $2)`,
          [randomUUID(), JSON.stringify({ transactionReferenceId: reference })],
        );
        await db.query(`UPDATE users SET balance = 200 WHERE id = $1`, [alice.id]);
        await db.query(`UPDATE users SET balance = 100.5 WHERE id = $1`, [bob.id]);
      });

      expect(await migrateAllAndVerify(url)).toContain(TREASURY_MIGRATION);

      const [alice, bob] = users;
      await withClient(url, async (db) => {
        const treasury = await db.query(
          `SELECT id, balance::text, upi_id FROM users WHERE kind = 'TREASURY' AND balance <> 0 ORDER BY id DESC`,
        );
        // Each opening went to its user's own treasury row, -(user id % 8).
        expect(treasury.rows).toEqual([
          { id: String(-(Number(alice.id) % 8)), balance: '-300.0000', upi_id: `treasury-${Number(alice.id) % 8}` },
          { id: String(-(Number(bob.id) % 8)), balance: '-0.5000', upi_id: `treasury-${Number(bob.id) % 8}` },
        ]);
        expect((await db.query(`SELECT count(*)::int AS n FROM users WHERE kind = 'TREASURY'`)).rows[0].n).toBe(8);
        const sides = await db.query(
          `SELECT o.amount::text AS opening, t.amount::text AS treasury, t.balance_after::text
           FROM ledger_entries o JOIN ledger_entries t
             ON t.transaction_reference_id = o.transaction_reference_id AND t.user_id <= 0 AND t.entry_type = 'DEBIT'
           WHERE o.transaction_id IS NULL AND o.user_id > 0 ORDER BY o.id`,
        );
        expect(sides.rows).toEqual([
          { opening: '300.0000', treasury: '300.0000', balance_after: '-300.0000' },
          { opening: '0.5000', treasury: '0.5000', balance_after: '-0.5000' },
        ]);
        expect((await db.query('SELECT sum(balance)::text AS s FROM users')).rows[0].s).toBe('0.0000');
        expect((await db.query('SELECT count(*)::int AS n FROM ledger_entries WHERE hash IS NULL')).rows[0].n).toBe(0);
        expect(await findLedgerViolations(db)).toEqual([]);
        const report = await auditLedger(db);
        expect(report).toEqual(
          expect.objectContaining({ ok: true, entries: 6, accounts: 8 + 8 + 3, brokenEntries: [] }),
        );
      });
    });
  });
});
