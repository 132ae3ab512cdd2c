import { Client } from 'pg';
import { ARCHIVED_TABLES, HASH_COLUMN, monthPartition } from '../../src/archive/archive-month';
import { MonthPartitionsRepository } from '../../src/archive/month-partitions.repository';
import { connectTestDatabase } from '../support/db';
import { newUser, transferFunds } from './support/factories';

/**
 * The SHA-256 columns a transfer writes hold the hash's 32 bytes, not its 64 hex characters
 * (migrations/1764035000000-hashes-as-bytes.ts), and the hashes are the ones the hash functions
 * define: their hex, decoded.
 */
describe('hashes as bytes', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  it('declares the three hash columns bytea', async () => {
    const { rows } = await db.query<{ column: string; type: string }>(
      `SELECT table_name || '.' || column_name AS column, data_type AS type FROM information_schema.columns
       WHERE table_schema = current_schema() AND (table_name, column_name) IN
             (('ledger_entries', 'hash'), ('users', 'last_entry_hash'), ('transactions', 'content_hash'))
       ORDER BY 1`,
    );
    expect(rows).toEqual([
      { column: 'ledger_entries.hash', type: 'bytea' },
      { column: 'transactions.content_hash', type: 'bytea' },
      { column: 'users.last_entry_hash', type: 'bytea' },
    ]);
  });

  it('stores a transfer’s entry hashes, account heads and content hash as 32 bytes, the hash functions’ hex decoded', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const { result } = await transferFunds(db, alice, bob.upiId, '12.3400');
    expect(result.code).toBe('completed');
    const transactionId = result.data.transactionId;

    const entries = await db.query<{ user_id: string; bytes: number; hex: string; expected: string }>(
      `SELECT l.user_id::text, octet_length(l.hash) AS bytes, encode(l.hash, 'hex') AS hex,
              ledger_entry_hash((SELECT encode(p.hash, 'hex') FROM ledger_entries p
                                 WHERE p.user_id = l.user_id AND p.id < l.id ORDER BY p.id DESC LIMIT 1),
                                l.user_id, l.transaction_reference_id, l.entry_type, l.amount, l.balance_before,
                                l.balance_after, l.created_at) AS expected
       FROM ledger_entries l WHERE l.transaction_id = $1 ORDER BY l.id`,
      [transactionId],
    );
    expect(entries.rows.map((entry) => entry.user_id)).toEqual([alice.id, bob.id]);
    for (const entry of entries.rows) {
      expect(entry.bytes).toBe(32);
      expect(entry.hex).toMatch(/^[0-9a-f]{64}$/);
      expect(entry.hex).toBe(entry.expected);
    }

    const heads = await db.query<{ id: string; bytes: number; hex: string }>(
      `SELECT id::text, octet_length(last_entry_hash) AS bytes, encode(last_entry_hash, 'hex') AS hex
       FROM users WHERE id = ANY($1) ORDER BY id`,
      [[alice.id, bob.id]],
    );
    expect(heads.rows).toEqual(
      entries.rows
        .map((entry) => ({ id: entry.user_id, bytes: 32, hex: entry.hex }))
        .sort((a, b) => Number(a.id) - Number(b.id)),
    );

    const transaction = await db.query<{ bytes: number; hex: string; expected: string }>(
      `SELECT octet_length(content_hash) AS bytes, encode(content_hash, 'hex') AS hex,
              transaction_content_hash(id, reference_id, sender_id, receiver_id, sender_upi_id, receiver_upi_id,
                amount, type, note, original_transaction_id, original_reference_id, created_at) AS expected
       FROM transactions WHERE id = $1`,
      [transactionId],
    );
    expect(transaction.rows).toHaveLength(1);
    expect(transaction.rows[0].bytes).toBe(32);
    expect(transaction.rows[0].hex).toBe(transaction.rows[0].expected);
  });

  it('archives a month’s rows in the very lines the files held when the hashes were hex text', async () => {
    const [alice, bob] = [await newUser(db, '10'), await newUser(db)];
    expect((await transferFunds(db, alice, bob.upiId, '1.0000')).result.code).toBe('completed');
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    try {
      const { month } = (
        await db.query<{ month: string }>(`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS month`)
      ).rows[0];
      for (const table of ARCHIVED_TABLES) {
        const partition = monthPartition(table, month);
        const column = HASH_COLUMN[table];
        // The partition's rows in a copy whose hash column is char(64), as it was: the old export's lines.
        await db.query(`CREATE TEMPORARY TABLE old_${table} (LIKE ${table}) ON COMMIT DROP`);
        await db.query(`ALTER TABLE old_${table} ALTER COLUMN ${column} TYPE char(64)`);
        await db.query(
          `INSERT INTO old_${table} SELECT r.* FROM ${partition} p, LATERAL jsonb_populate_record(NULL::old_${table},
             to_jsonb(p) || jsonb_build_object('${column}', encode(p.${column}, 'hex'))) r`,
        );
        const old = await db.query<{ line: string }>(
          `SELECT row_to_json(t)::text AS line FROM old_${table} t ORDER BY t.id`,
        );
        const lines: string[] = [];
        for await (const batch of MonthPartitionsRepository.rows(db, table, month, 1000)) lines.push(...batch);
        expect(lines.length).toBeGreaterThan(0);
        expect(lines).toEqual(old.rows.map((row) => row.line));
      }
    } finally {
      await db.query('ROLLBACK');
    }
  });
});
