import { randomBytes } from 'node:crypto';
import type { ClientBase } from 'pg';
import { outboxRetentionDays } from '../../src/config/app-config';

export interface SeedPlan {
  users: number;
  /** Each round, user i pays user i + 1 (the last pays the first) the same amount. */
  rounds: number;
  transactions: number;
  /** One opening credit per user plus two entries per transaction. */
  ledgerEntries: number;
}

export interface SeedResult extends SeedPlan {
  /** Distinguishes this seed's users: their UPI IDs are seedUpiId(nonce, 0..users-1). */
  nonce: string;
  insertSeconds: number;
  vacuumSeconds: number;
}

const OPENING_BALANCE = 1_000_000;
const LEDGER_COLUMNS =
  'id, user_id, transaction_id, transaction_reference_id, entry_type, amount, balance_before, balance_after, created_at';
const HISTORY_DAYS = 400;
/** The money records' history: past partitions made first. */
const HISTORY_TABLES = ['transactions', 'ledger_entries'];

/** At least `entries` ledger entries in whole rounds (the balance chains are closed-form per round). */
export function planSeed(users: number, entries: number): SeedPlan {
  if (users < 2) throw new Error('a seed needs at least 2 users');
  const rounds = Math.max(0, Math.ceil((entries - users) / (2 * users)));
  return { users, rounds, transactions: rounds * users, ledgerEntries: users + 2 * rounds * users };
}

export const seedUpiId = (nonce: string, index: number) => `seed.${nonce}.${index}@okbank`;

/**
 * Adds users, transfers, their ledger entries and published outbox events in SQL
 * (generate_series), consistent with every ledger invariant: each user opens with a credit;
 * in round j user i pays user (i + 1) mod N the amount a(j), so within a round every user is
 * credited then debited (user 0: debited then credited) and ends where it started. Rows get
 * explicit ids above the existing ones, so the chains follow id order as the service's do.
 *
 * Like pg_restore, it drops the secondary indexes of the big tables, loads, then rebuilds
 * them from their own definitions, and (as superuser) skips the foreign-key triggers.
 */
export async function seedLarge(
  db: ClientBase,
  users: number,
  entries: number,
  outboxDays = outboxRetentionDays(),
): Promise<SeedResult> {
  const plan = planSeed(users, entries);
  const nonce = randomBytes(4).toString('hex');
  const started = performance.now();
  await db.query('BEGIN');
  try {
    await db.query(`SET LOCAL maintenance_work_mem = '256MB'`);
    await db.query(`SET LOCAL work_mem = '64MB'`);
    await skipForeignKeyChecks(db);
    await makeHistoryPartitions(db, outboxDays);
    const indexes = await dropSecondaryIndexes(db, [...HISTORY_TABLES, 'outbox_events']);
    const base = (
      await db.query(`
      SELECT (SELECT coalesce(max(id), 0) FROM users)::bigint AS users,
             (SELECT coalesce(max(id), 0) FROM transactions)::bigint AS transactions,
             (SELECT coalesce(max(id), 0) FROM ledger_entries)::bigint AS entries,
             (SELECT coalesce(max(id), 0) FROM outbox_events)::bigint AS events`)
    ).rows[0];
    await db.query(`CREATE TEMPORARY TABLE seed_entries ON COMMIT DROP AS SELECT * FROM ledger_entries WITH NO DATA`);
    for (const sql of seedStatements(plan, nonce, base)) await db.query(sql);
    await addTreasurySides(db, base.entries, plan);
    await insertChainedEntries(db);
    await moveAccountHeads(db, base.entries);
    for (const definition of indexes) await db.query(definition);
    for (const table of ['users', 'transactions', 'ledger_entries', 'outbox_events']) {
      await db.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`);
    }
    await db.query('COMMIT');
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
  const inserted = performance.now();
  // A database this size in production has been vacuumed and analysed: plans and
  // index-only scans should see it that way.
  await db.query('VACUUM (ANALYZE) users, transactions, ledger_entries, outbox_events');
  return {
    ...plan,
    nonce,
    insertSeconds: Math.round((inserted - started) / 100) / 10,
    vacuumSeconds: Math.round((performance.now() - inserted) / 100) / 10,
  };
}

/**
 * The treasury's side of every seeded opening credit, as treasury_issue writes it: a DEBIT of the
 * user's own treasury row, -(id % 8), under the opening's reference and time, after all the
 * seeded entries. Its balances continue from the row's current balance. (Calling treasury_issue
 * per user works too, but 100,000 updates of eight rows in one transaction are quadratic.)
 */
async function addTreasurySides(db: ClientBase, baseEntry: string, plan: SeedPlan): Promise<void> {
  await db.query(
    `INSERT INTO seed_entries (${LEDGER_COLUMNS})
     SELECT $1::bigint + $2::bigint + row_number() OVER (ORDER BY o.id), t.id, NULL, o.transaction_reference_id,
            'DEBIT', o.amount,
            t.balance - sum(o.amount) OVER w + o.amount, t.balance - sum(o.amount) OVER w, o.created_at
     FROM seed_entries o JOIN users t ON t.id = -(o.user_id % 8) AND t.kind = 'TREASURY'
     WHERE o.id > $1::bigint AND o.id <= $1::bigint + $3::bigint
     WINDOW w AS (PARTITION BY t.id ORDER BY o.id ROWS UNBOUNDED PRECEDING)`,
    [baseEntry, plan.ledgerEntries, plan.users],
  );
}

/**
 * Every chain the seed extends, as the movements would have written it: entry by entry in id
 * order, each ledger_entry_hash over the previous hash (the account's head before the first; hex
 * to the hash function, bytes in the columns). A running aggregate over a window per account
 * computes all of them in one pass of one INSERT, instead of an UPDATE per entry (minutes for 5
 * million).
 */
async function insertChainedEntries(db: ClientBase): Promise<void> {
  await db.query(`
    CREATE OR REPLACE FUNCTION pg_temp.seed_chain_step(p_previous text, p_head text, p_user_id bigint,
      p_reference uuid, p_entry_type text, p_amount numeric, p_balance_before numeric, p_balance_after numeric,
      p_created_at timestamptz)
    RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT ledger_entry_hash(coalesce(p_previous, p_head), p_user_id, p_reference, p_entry_type, p_amount,
        p_balance_before, p_balance_after, p_created_at)::text
    $$`);
  await db.query(`
    CREATE OR REPLACE AGGREGATE pg_temp.seed_chain(text, bigint, uuid, text, numeric, numeric, numeric, timestamptz)
      (SFUNC = pg_temp.seed_chain_step, STYPE = text)`);
  const columns = LEDGER_COLUMNS.split(', ')
    .map((column) => `e.${column}`)
    .join(', ');
  await db.query(`
    INSERT INTO ledger_entries (${LEDGER_COLUMNS}, hash)
    OVERRIDING SYSTEM VALUE
    SELECT ${columns},
           decode(pg_temp.seed_chain(encode(u.last_entry_hash, 'hex'), e.user_id, e.transaction_reference_id,
                                     e.entry_type, e.amount, e.balance_before, e.balance_after, e.created_at)
                    OVER (PARTITION BY e.user_id ORDER BY e.id ROWS UNBOUNDED PRECEDING), 'hex')
    FROM seed_entries e JOIN users u ON u.id = e.user_id`);
}

/** Each account the seed wrote to: its head hash, and for the treasury rows the balance they issued. */
async function moveAccountHeads(db: ClientBase, baseEntry: string): Promise<void> {
  await db.query(
    `UPDATE users u SET last_entry_hash = head.hash, balance = head.balance_after,
                        version = u.version + CASE WHEN u.kind = 'TREASURY' THEN head.entries ELSE 0 END
     FROM (SELECT DISTINCT ON (user_id) user_id, hash, balance_after,
                  count(*) OVER (PARTITION BY user_id) AS entries
           FROM ledger_entries WHERE id > $1::bigint ORDER BY user_id, id DESC) head
     WHERE u.id = head.user_id`,
    [baseEntry],
  );
}

async function skipForeignKeyChecks(db: ClientBase): Promise<void> {
  await db.query('SAVEPOINT replica_role');
  try {
    await db.query(`SET LOCAL session_replication_role = replica`);
  } catch {
    await db.query('ROLLBACK TO SAVEPOINT replica_role'); // Not a superuser: the checks run, slower.
  }
}

/**
 * The partitions the seeded history falls in (src/partitions/sql/ensure_partitions.sql), as a
 * restore makes them: the money records' for the whole history, the outbox's for the days its
 * retention keeps (older days' events are gone with their partitions in a service that old).
 */
async function makeHistoryPartitions(db: ClientBase, outboxDays: number): Promise<void> {
  await db.query(
    `SELECT ensure_partitions(t, now() - interval '${HISTORY_DAYS + 2} days', now() + interval '1 day')
     FROM unnest($1::text[]) AS t`,
    [HISTORY_TABLES],
  );
  await db.query(
    `SELECT ensure_partitions('outbox_events', now() - make_interval(days => $1), now() + interval '1 day')`,
    [outboxDays],
  );
}

/** Drops the indexes no constraint depends on and returns the statements that recreate them. */
async function dropSecondaryIndexes(db: ClientBase, tables: string[]): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i
     WHERE i.indrelid = ANY($1::regclass[])
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [tables],
  );
  for (const row of rows) await db.query(`DROP INDEX ${row.name}`);
  // A partitioned table's index is printed ON ONLY the parent; made again on the whole table.
  return rows.map((row) => (row.definition as string).replace(' ON ONLY ', ' ON '));
}

function seedStatements(plan: SeedPlan, nonce: string, base: Record<string, string>): string[] {
  const n = plan.users;
  const t = plan.transactions;
  const upi = (index: string) => `'seed.${nonce}.' || ${index} || '@okbank'`;
  // Deterministic and cheap (no hashing of millions of rows): nonce, tag, then the row number in hex.
  const uuid = (tag: 'u' | 'o' | 't' | 'e', index: string) =>
    `('${nonce}-000${'uote'.indexOf(tag)}-4000-8000-' || lpad(to_hex(${index}), 12, '0'))::uuid`;
  // One row per transaction k: sender i, receiver r, round amount a, time at.
  const transfers = `
    SELECT k, k % ${n} AS i, (k % ${n} + 1) % ${n} AS r,
           (1 + ((k / ${n}) * 37) % 500 + 0.25)::numeric(19,4) AS a,
           date_trunc('milliseconds', now() - interval '${HISTORY_DAYS} days' + (k + 1) * (interval '${HISTORY_DAYS} days' / ${Math.max(1, t) + 1})) AS at
    FROM generate_series(0, ${t - 1}) k`;
  const b = OPENING_BALANCE;
  return [
    `INSERT INTO users (id, reference_id, name, upi_id, phone_number, balance, version, created_at, updated_at)
     OVERRIDING SYSTEM VALUE
     SELECT ${base.users} + i + 1, ${uuid('u', 'i')}, 'Seed ' || i, ${upi('i')}, (6000000000 + i)::text,
            ${b}, ${2 * plan.rounds}, now() - interval '${HISTORY_DAYS + 1} days', now() - interval '1 day'
     FROM generate_series(0, ${n - 1}) i`,
    `INSERT INTO seed_entries (${LEDGER_COLUMNS})
     SELECT ${base.entries} + i + 1, ${base.users} + i + 1, NULL, ${uuid('o', 'i')}, 'CREDIT', ${b}, 0, ${b},
            now() - interval '${HISTORY_DAYS + 1} days'
     FROM generate_series(0, ${n - 1}) i`,
    `INSERT INTO transactions (id, reference_id, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount, created_at)
     OVERRIDING SYSTEM VALUE
     SELECT ${base.transactions} + k + 1, ${uuid('t', 'k')}, ${base.users} + i + 1, ${base.users} + r + 1,
            ${upi('i')}, ${upi('r')}, a, at
     FROM (${transfers}) s`,
    // Debit (e = 0) then credit (e = 1); see seedLarge for why these balances chain up.
    `INSERT INTO seed_entries (${LEDGER_COLUMNS})
     SELECT ${base.entries} + ${n} + 2 * k + e + 1,
            ${base.users} + CASE e WHEN 0 THEN i ELSE r END + 1,
            ${base.transactions} + k + 1, ${uuid('t', 'k')},
            CASE e WHEN 0 THEN 'DEBIT' ELSE 'CREDIT' END, a,
            CASE WHEN e = 0 AND i = 0 THEN ${b} WHEN e = 0 THEN ${b} + a WHEN r = 0 THEN ${b} - a ELSE ${b} END,
            CASE WHEN e = 0 AND i = 0 THEN ${b} - a WHEN e = 0 THEN ${b} WHEN r = 0 THEN ${b} ELSE ${b} + a END,
            at
     FROM (${transfers}) s CROSS JOIN (VALUES (0), (1)) v(e)`,
    // The event as the service writes a plain transfer's (its transaction names key and payload),
    // for the transfers of the days the outbox keeps (the partitions made above), long published:
    // transaction 1 is visible in every snapshot the relay keeps (src/outbox/sql/outbox_pending.sql).
    `INSERT INTO outbox_events (id, event_id, event_type, transaction_id, created_at, xid)
     OVERRIDING SYSTEM VALUE
     SELECT ${base.events} + k + 1, ${uuid('e', 'k')}, 'TransferCompleted', ${base.transactions} + k + 1, at, '1'::xid8
     FROM (${transfers}) s
     WHERE at >= (SELECT min(range_start) FROM partition_ranges('outbox_events'))`,
  ];
}
