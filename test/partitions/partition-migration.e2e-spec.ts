import { randomUUID } from 'node:crypto';
import { PartitionMoneyRecords1764020000000 } from '../../migrations/1764020000000-partition-money-records';
import { PartitionShortLivedTables1764020100000 } from '../../migrations/1764020100000-partition-short-lived-tables';
import { migrateAllAndVerify, migrateUpTo, migrationTimestamp, withClient, withDatabaseBefore } from '../support/db';

const OLD = '2018-01-15T10:00:00Z';
const PARTITIONING_DONE = migrationTimestamp(PartitionShortLivedTables1764020100000);

/** Every row of the five tables, as text, in id order: what the conversion must keep. */
const SNAPSHOT = `
  SELECT 'transactions' AS t, (SELECT json_agg(x ORDER BY x.id)::text FROM transactions x) AS rows
  UNION ALL SELECT 'ledger_entries', (SELECT json_agg(x ORDER BY x.id)::text FROM ledger_entries x)
  UNION ALL SELECT 'outbox_events', (SELECT json_agg(x ORDER BY x.id)::text FROM outbox_events x)
  UNION ALL SELECT 'idempotency_keys', (SELECT json_agg(x ORDER BY x.id)::text FROM idempotency_keys x)
  UNION ALL SELECT 'webhook_deliveries', (SELECT json_agg(x ORDER BY x.id)::text FROM webhook_deliveries x)
  ORDER BY 1`;

/** Hashes the later migrations store as bytes instead of hex text: the same value, written `\\x<hex>` in JSON. */
const HASH_COLUMNS = new Set(['request_hash', 'hash', 'content_hash']);
const asHex = (column: string, value: unknown) =>
  HASH_COLUMNS.has(column) && typeof value === 'string' && value.startsWith('\\x') ? value.slice(2) : value;

/** The later migrations add columns (null on old rows); every column the rows had before must be unchanged. */
function withColumnsOf(before: { t: string; rows: string }[], after: { t: string; rows: string }[]) {
  return after.map(({ t, rows }) => {
    const old = JSON.parse(before.find((table) => table.t === t)?.rows ?? 'null') as Record<string, unknown>[] | null;
    const kept = (JSON.parse(rows) as Record<string, unknown>[] | null)?.map((row, i) =>
      Object.fromEntries(Object.keys(old?.[i] ?? row).map((column) => [column, asHex(column, row[column])])),
    );
    return { t, rows: kept };
  });
}

describe('the partitioning migrations on existing data', () => {
  it('keep every row, each in the partition of its month or day, and the schema check passes', async () => {
    // A database as the service left it before partitioning, with rows in two months.
    await withDatabaseBefore(PartitionMoneyRecords1764020000000, async (url) => {
      const before = await withClient(url, async (db) => {
        const users: string[] = [];
        for (const upi of ['old.alice@bank', 'old.bob@bank']) {
          const { rows } = await db.query(
            `INSERT INTO users (reference_id, name, upi_id, phone_number, balance) VALUES ($1, 'Old', $2, '9876543210', 0)
             RETURNING id`,
            [randomUUID(), upi],
          );
          users.push(rows[0].id);
        }
        for (const at of [OLD, new Date().toISOString()]) {
          const reference = randomUUID();
          const { rows } = await db.query(
            `INSERT INTO transactions (reference_id, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount, created_at)
             VALUES ($1, $2, $3, 'old.alice@bank', 'old.bob@bank', 1, $4) RETURNING id`,
            [reference, users[0], users[1], at],
          );
          await db.query(
            `INSERT INTO ledger_entries (user_id, transaction_id, transaction_reference_id, entry_type, amount,
                                         balance_before, balance_after, created_at)
             VALUES ($1, $3, $4, 'CREDIT', 1, 0, 1, $5), ($2, $3, $4, 'CREDIT', 1, 0, 1, $5)`,
            [users[0], users[1], rows[0].id, reference, at],
          );
          await db.query(
            `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, created_at)
             VALUES ($1, 'TransferCompleted', 'old.alice@bank', '{}', $2)`,
            [randomUUID(), at],
          );
          await db.query(
            `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, created_at)
             VALUES ('old.alice@bank', $1, repeat('0', 64), 'SUCCESS', $2)`,
            [randomUUID(), at],
          );
          await db.query(
            `INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload, created_at)
             VALUES (1, $1, 'TransferCompleted', '{}', $2)`,
            [randomUUID(), at],
          );
        }
        await db.query(
          `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, published_at)
           VALUES ($1, 'TransferCompleted', 'published@bank', '{}', now())`,
          [randomUUID()],
        );
        return (await db.query<{ t: string; rows: string }>(SNAPSHOT)).rows;
      });

      // The rows as the partitioning migrations leave them (later ones drop columns of their own).
      const partitioned = await migrateUpTo(url, (timestamp) => timestamp <= PARTITIONING_DONE);
      expect(partitioned).toEqual(['PartitionMoneyRecords1764020000000', 'PartitionShortLivedTables1764020100000']);
      await withClient(url, async (db) => {
        const after = (await db.query<{ t: string; rows: string }>(SNAPSHOT)).rows;
        expect(withColumnsOf(before, after)).toEqual(
          before.map(({ t, rows }) => ({ t, rows: JSON.parse(rows) as unknown })),
        );
      });

      expect(await migrateAllAndVerify(url)).toEqual(
        expect.arrayContaining(['OutboxEventsWithoutCopies1764021000000', 'OutboxRelayPosition1764038000000']),
      );

      await withClient(url, async (db) => {
        const placed = await db.query<{ partition: string }>(
          `SELECT DISTINCT tableoid::regclass::text AS partition FROM (
             SELECT tableoid, created_at FROM transactions UNION ALL SELECT tableoid, created_at FROM ledger_entries
             UNION ALL SELECT tableoid, created_at FROM outbox_events
             UNION ALL SELECT tableoid, created_at FROM idempotency_keys
             UNION ALL SELECT tableoid, created_at FROM webhook_deliveries) x
           WHERE created_at < '2019-01-01' ORDER BY 1`,
        );
        expect(placed.rows.map((row) => row.partition)).toEqual([
          'idempotency_keys_p20180115',
          'ledger_entries_p201801',
          'outbox_events_p20180115',
          'transactions_p201801',
          'webhook_deliveries_p20180115',
        ]);
        // The relay's place (OutboxRelayPosition1764038000000): what was published stays published,
        // what was not is still to publish.
        const relayed = await db.query<{ key: string; published: boolean }>(
          `SELECT o.aggregate_key AS key, pg_visible_in_snapshot(o.xid, p.published) AS published
           FROM outbox_events o, outbox_relay_position p ORDER BY o.id`,
        );
        expect(relayed.rows).toEqual([
          { key: 'old.alice@bank', published: false },
          { key: 'old.alice@bank', published: false },
          { key: 'published@bank', published: true },
        ]);
        // The identity goes on after the copied rows.
        const { rows } = await db.query<{ id: string; max: string }>(
          `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload)
           VALUES (gen_random_uuid(), 'TransferCompleted', 'x@bank', '{}')
           RETURNING id, (SELECT max(id) FROM outbox_events) AS max`,
        );
        expect(BigInt(rows[0].id)).toBeGreaterThan(BigInt(rows[0].max));
        // The tables' triggers came back: a transaction is still immutable.
        await expect(db.query(`UPDATE transactions SET amount = 2`)).rejects.toThrow(/immutable/);
      });
    });
  }, 60_000);
});
