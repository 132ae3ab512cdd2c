import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { OutboxRelay } from '../../src/outbox/outbox-relay.service';
import { PARTITIONED_TABLES } from '../../src/partitions/partitions.repository';
import { RetentionJob } from '../../src/partitions/retention.job';
import { newIdempotencyKey } from '../support/api-client';
import { createScratchDatabase } from '../support/db';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The five time-partitioned tables, the job that makes their partitions (two instances on one
 * database) and retention by dropping partitions, on a database of this file's own: retention
 * drops whole partitions, which must not pull rows from under the other test files.
 */
describe('partitions and retention', () => {
  let scratch: { url: string; drop: () => Promise<void> };
  let first: TestApp;
  let second: TestApp;
  let db: Client;
  const query = <T extends object = Record<string, unknown>>(sql: string, values: unknown[] = []) =>
    db.query<T>(sql, values).then((result) => result.rows);
  const partitionsOf = async (table: string) =>
    (
      await query<{ name: string; from: Date; to: Date }>(
        `SELECT partition_name AS name, range_start AS from, range_end AS to FROM partition_ranges($1) ORDER BY 2`,
        [table],
      )
    ).map((row) => row.name);

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    db = new Client({ connectionString: scratch.url });
    await db.connect();
    // A partition the migration made ahead goes, so that the instances' boot has one to make.
    await query(`DROP TABLE idempotency_keys_p${dayName(3)}`);
    [first, second] = await Promise.all([
      startTestApp({ DATABASE_URL: scratch.url }),
      startTestApp({ DATABASE_URL: scratch.url }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await db?.end();
    await scratch?.drop();
  });

  it('partitions the five tables by range of created_at', async () => {
    const rows = await query<{ table: string; strategy: string; key: string }>(
      `SELECT c.relname AS table, p.partstrat AS strategy, a.attname AS key
       FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
       JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
       WHERE c.relnamespace = 'public'::regnamespace ORDER BY 1`,
    );
    expect(rows).toEqual([...PARTITIONED_TABLES].sort().map((table) => ({ table, strategy: 'r', key: 'created_at' })));
  });

  it('cuts money records by month and the short-lived tables by day, in UTC, named for their range', async () => {
    const [month] = await query<{ name: string; from: string; to: string }>(
      `SELECT partition_name AS name, to_char(range_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS from,
              to_char(range_end AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS to
       FROM partition_ranges('transactions') WHERE range_start <= now() AND range_end > now()`,
    );
    expect(month.name).toMatch(/^transactions_p\d{6}$/);
    expect(month.from).toMatch(/^\d{4}-\d{2}-01 00:00$/);
    expect(month.to).toMatch(/^\d{4}-\d{2}-01 00:00$/);
    const days = await partitionsOf('outbox_events');
    expect(days).toEqual(expect.arrayContaining([`outbox_events_p${dayName(0)}`, `outbox_events_p${dayName(1)}`]));
  });

  it('makes the partitions ahead of the database clock at boot, on two instances at once', async () => {
    for (const table of ['idempotency_keys', 'outbox_events', 'webhook_deliveries']) {
      expect(await partitionsOf(table)).toEqual(
        expect.arrayContaining([-1, 0, 1, 2, 3].map((days) => `${table}_p${dayName(days)}`)),
      );
    }
    expect(await partitionsOf('ledger_entries')).toEqual(
      expect.arrayContaining([0, 1, 2].map((months) => `ledger_entries_p${monthName(months)}`)),
    );
  });

  it('ensure_partitions makes only what is missing, once, for any time (a seed or a restore in 2017)', async () => {
    const made = await query<{ made: number }>(
      `SELECT ensure_partitions('transactions', '2017-12-10', '2018-01-05') AS made`,
    );
    expect(made).toEqual([{ made: 2 }]);
    const [again] = await query<{ made: number }>(
      `SELECT ensure_partitions('transactions', '2017-12-01', '2018-02-01') AS made`,
    );
    expect(again.made).toBe(0);
    const ranges = await query<{ name: string; from: string }>(
      `SELECT partition_name AS name, to_char(range_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS from
       FROM partition_ranges('transactions') WHERE range_start < '2019-01-01' ORDER BY range_start`,
    );
    expect(ranges).toEqual([
      { name: 'transactions_p201712', from: '2017-12-01 00:00' },
      { name: 'transactions_p201801', from: '2018-01-01 00:00' },
    ]);
    // Two sessions at once: both succeed, and each partition is made once.
    const sessions = [new Client({ connectionString: scratch.url }), new Client({ connectionString: scratch.url })];
    await Promise.all(sessions.map((session) => session.connect()));
    try {
      const made = await Promise.all(
        sessions.map((session, i) =>
          session.query<{ made: number }>(
            `SELECT ensure_partitions('outbox_events', '2017-12-0${i + 1}', '2017-12-05') AS made`,
          ),
        ),
      );
      expect(made[0].rows[0].made + made[1].rows[0].made).toBe(4);
    } finally {
      await Promise.all(sessions.map((session) => session.end()));
    }
  });

  it('a money row of a past month lands in its partition, and money still moves today', async () => {
    const [alice, bob] = await Promise.all([first.api.registerUser(), second.api.registerUser({ balance: 0 })]);
    const response = await first.api.transfer(alice, bob.upiId, 5);
    expect(response.status).toBe(201);
    const [row] = await query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM transactions WHERE reference_id = $1`,
      [response.body.referenceId],
    );
    expect(row.partition).toBe(`transactions_p${monthName(0)}`);
    const [entry] = await query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM ledger_entries WHERE transaction_reference_id = $1 LIMIT 1`,
      [response.body.referenceId],
    );
    expect(entry.partition).toBe(`ledger_entries_p${monthName(0)}`);
  });

  it('replays a key across the day boundary: the record in yesterday’s partition answers', async () => {
    const [alice, bob] = await Promise.all([first.api.registerUser(), first.api.registerUser({ balance: 0 })]);
    const key = newIdempotencyKey();
    const original = await first.api.transfer(alice, bob.upiId, 7, { key });
    expect(original.status).toBe(201);
    await query(
      `UPDATE idempotency_keys SET created_at = now() - interval '1 day' WHERE owner_upi_id = lower($1) AND idempotency_key = $2`,
      [alice.upiId, key],
    );
    const [moved] = await query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM idempotency_keys WHERE owner_upi_id = lower($1) AND idempotency_key = $2`,
      [alice.upiId, key],
    );
    expect(moved.partition).toBe(`idempotency_keys_p${dayName(-1)}`);
    const replay = await second.api.transfer(alice, bob.upiId, 7, { key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(original.text);
    const reused = await second.api.transfer(alice, bob.upiId, 8, { key });
    expect(reused.status).toBe(400);
    const [{ count }] = await query<{ count: number }>(
      `SELECT count(*)::int AS count FROM transactions WHERE sender_upi_id = $1`,
      [alice.upiId],
    );
    expect(count).toBe(1);
  });

  describe('retention', () => {
    const at = (days: number) => `now() - interval '${days} days'`;
    beforeAll(async () => {
      for (const table of ['idempotency_keys', 'outbox_events', 'webhook_deliveries']) {
        await query(`SELECT ensure_partitions($1, ${at(45)}, ${at(2)})`, [table]);
      }
    });

    // Published once the running relay has passed it (src/outbox/sql/outbox_pending.sql).
    const insertEvent = (days: number) =>
      query(
        `INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, created_at)
         VALUES ($1, 'TransferCompleted', 'old@bank', '{}', ${at(days)})`,
        [randomUUID()],
      );
    const relayAll = () => first.app.get(OutboxRelay).drainNow();
    const insertDelivery = (days: number, status: string, finishedDaysAgo: number | null) =>
      query(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload, status, created_at, finished_at)
         VALUES (1, $1, 'TransferCompleted', '{}', $2, ${at(days)}, ${finishedDaysAgo === null ? 'NULL' : at(finishedDaysAgo)})`,
        [randomUUID(), status],
      );
    const insertKey = (days: number) =>
      query(
        `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, created_at)
         VALUES ('old@bank', $1, decode(repeat('0', 64), 'hex'), 'SUCCESS', ${at(days)})`,
        [randomUUID()],
      );

    it('drops expired partitions whole and keeps every partition with a row still in use', async () => {
      await insertKey(3); // older than IDEMPOTENCY_TTL_HOURS (24) by a whole day: goes
      await insertKey(0.5); // within the TTL: stays
      await insertEvent(10); // published, past OUTBOX_RETENTION_DAYS (7): goes
      await insertEvent(12); // published, but a delivery of its day is pending: stays
      await relayAll();
      await insertDelivery(12, 'PENDING', null);
      await insertDelivery(40, 'DELIVERED', 39); // finished, past 30 days: goes
      await insertDelivery(41, 'FAILED', 1); // retried by an admin, finished yesterday: stays
      await insertDelivery(42, 'PENDING', null); // unfinished: stays
      const live = async (table: string, days: number[]) => {
        const names = await partitionsOf(table);
        return days.filter((d) => names.includes(`${table}_p${dayName(-d)}`));
      };

      // An unpublished event keeps its partition. In this session's transaction, as the running
      // relay would publish it at once if it were committed.
      await query('BEGIN');
      try {
        await insertEvent(11);
        await query(`SELECT drop_expired_partitions('outbox_events', interval '7 days')`);
        expect(await live('outbox_events', [10, 11, 12])).toEqual([11, 12]);
      } finally {
        await query('COMMIT');
      }

      await relayAll();
      const dropped = await first.app.get(RetentionJob).run();

      expect(await live('idempotency_keys', [3, 0])).toEqual([0]);
      // Day 11 goes too once the relay has published its event: it is running.
      expect(await live('outbox_events', [10, 12])).toEqual([12]);
      expect(await live('webhook_deliveries', [12, 40, 41, 42])).toEqual([12, 41, 42]);
      // Every empty expired day went too (they are dropped like the others).
      expect(await live('outbox_events', [20, 30])).toEqual([]);
      expect(dropped).toBeGreaterThanOrEqual(2);
      const counts = await query<{ keys: number; deliveries: number }>(
        `SELECT (SELECT count(*)::int FROM idempotency_keys WHERE owner_upi_id = 'old@bank') AS keys,
                (SELECT count(*)::int FROM webhook_deliveries WHERE endpoint_id = 1) AS deliveries`,
      );
      expect(counts).toEqual([{ keys: 1, deliveries: 3 }]);

      // Once done with, the kept partitions go at the next run (on the other instance).
      await relayAll();
      await query(`UPDATE webhook_deliveries SET status = 'DELIVERED', finished_at = ${at(35)} WHERE endpoint_id = 1`);
      await second.app.get(RetentionJob).run();
      expect(await live('outbox_events', [11, 12])).toEqual([]);
      // Day 12 is within WEBHOOK_DELIVERY_RETENTION_DAYS (30): it stays.
      expect(await live('webhook_deliveries', [12, 41, 42])).toEqual([12]);
    });
  });
});

/** YYYYMMDD of the UTC day `days` from today. */
function dayName(days: number): string {
  const date = new Date(Date.now() + days * 86_400_000);
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

/** YYYYMM of the UTC month `months` from this one. */
function monthName(months: number): string {
  const now = new Date();
  const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));
  return date.toISOString().slice(0, 7).replace('-', '');
}
