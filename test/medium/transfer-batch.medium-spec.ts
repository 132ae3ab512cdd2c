import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { connectTestDatabase, createScratchDatabase } from '../support/db';
import { type MediumUser, newUser, transferBatch, transferFunds } from './support/factories';
import { waitForBackendBlockedBy, waitForBackendWaitingOnLock } from './support/locks';

/** Group commit in SQL: transfer_funds_batch against the run's PostgreSQL, one deterministic batch per call. */
describe('transfer_funds_batch', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  /** The users' balances in their order, in one query (one connection runs one query at a time). */
  const balances = async (...users: MediumUser[]) =>
    (
      await db.query<{ b: string }>(
        'SELECT u.balance::text AS b FROM unnest($1::bigint[]) WITH ORDINALITY AS w(id, n) JOIN users u ON u.id = w.id ORDER BY w.n',
        [users.map((user) => user.id)],
      )
    ).rows.map((row) => row.b);

  it('decides each item alone: refused items among completed ones change nothing of theirs', async () => {
    const [alice, bob, carol, dave] = [
      await newUser(db, '100'),
      await newUser(db),
      await newUser(db, '5'),
      await newUser(db),
    ];
    // Keys that sort in item order, to read the records back in it.
    const key = (n: number) => `${alice.upiId}-${n}`;
    const rows = await transferBatch(db, [
      { sender: alice, receiverUpiId: bob.upiId, amount: '10.0000', key: key(1) },
      { sender: carol, receiverUpiId: dave.upiId, amount: '50.0000', key: key(2) },
      { sender: alice, receiverUpiId: 'ghost@medium', amount: '1.0000', key: key(3) },
      { sender: carol, receiverUpiId: carol.upiId.toUpperCase(), amount: '1.0000', key: key(4) },
      { sender: alice, receiverUpiId: dave.upiId, amount: '20.0000', key: key(5) },
    ]);
    expect(rows.map((row) => [row.result.code, row.replayed])).toEqual([
      ['completed', false],
      ['insufficient-balance', false],
      ['user-not-found', false],
      ['self-transfer', false],
      ['completed', false],
    ]);
    expect(rows[1].result.data).toEqual({ available: '5.0000', required: '50.0000' });
    expect(rows[2].result.data).toEqual({ upiId: 'ghost@medium' });
    expect(rows[4].result.data).toMatchObject({
      senderUpiId: alice.upiId,
      receiverUpiId: dave.upiId,
      amount: '20.0000',
    });
    expect(await balances(alice, bob, carol, dave)).toEqual(['70.0000', '10.0000', '5.0000', '20.0000']);
    // Every decision is stored under its key, with the status the service answers for it.
    const stored = await db.query(
      `SELECT status, response_status, outcome->>'code' AS code FROM idempotency_keys
       WHERE owner_upi_id IN (lower($1), lower($2)) ORDER BY idempotency_key`,
      [alice.upiId, carol.upiId],
    );
    expect(stored.rows).toEqual([
      { status: 'SUCCESS', response_status: 201, code: 'completed' },
      { status: 'FAILED', response_status: 422, code: 'insufficient-balance' },
      { status: 'FAILED', response_status: 404, code: 'user-not-found' },
      { status: 'FAILED', response_status: 400, code: 'self-transfer' },
      { status: 'SUCCESS', response_status: 201, code: 'completed' },
    ]);
  });

  it('decides items in order against running balances: of two items of one sender only the first fits', async () => {
    const [alice, bob, carol] = [await newUser(db, '100'), await newUser(db), await newUser(db)];
    const rows = await transferBatch(db, [
      { sender: alice, receiverUpiId: bob.upiId, amount: '60.0000' },
      { sender: alice, receiverUpiId: carol.upiId, amount: '60.0000' },
      { sender: alice, receiverUpiId: carol.upiId, amount: '40.0000' },
    ]);
    expect(rows.map((row) => row.result.code)).toEqual(['completed', 'insufficient-balance', 'completed']);
    expect(rows[1].result.data).toEqual({ available: '40.0000', required: '60.0000' });
    expect(await balances(alice, bob, carol)).toEqual(['0.0000', '60.0000', '40.0000']);
    const entries = await db.query(
      `SELECT entry_type, balance_before::text AS before, balance_after::text AS after FROM ledger_entries
       WHERE user_id = $1 AND entry_type = 'DEBIT' ORDER BY id`,
      [alice.id],
    );
    expect(entries.rows).toEqual([
      { entry_type: 'DEBIT', before: '100.0000', after: '40.0000' },
      { entry_type: 'DEBIT', before: '40.0000', after: '0.0000' },
    ]);
  });

  it('answers one key twice in a batch as twins: the first runs, the same request replays it, another is key-reused', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const key = randomUUID();
    const rows = await transferBatch(db, [
      { sender: alice, receiverUpiId: bob.upiId, amount: '10.0000', key },
      { sender: alice, receiverUpiId: bob.upiId, amount: '10.0000', key },
      { sender: alice, receiverUpiId: bob.upiId, amount: '10.0000', key, hashSalt: 'another request' },
    ]);
    expect(rows[0].replayed).toBe(false);
    expect(rows[0].result.code).toBe('completed');
    expect(rows[1]).toEqual({ result: rows[0].result, replayed: true });
    expect(rows[2]).toEqual({ result: { code: 'key-reused' }, replayed: false });
    expect(await balances(alice, bob)).toEqual(['90.0000', '10.0000']);
    const records = await db.query('SELECT count(*)::int AS n FROM idempotency_keys WHERE idempotency_key = $1', [key]);
    expect(records.rows[0].n).toBe(1);
    // Later, alone or in another batch, the key replays the same stored answer.
    expect(await transferFunds(db, alice, bob.upiId, '10.0000', key)).toEqual({
      result: rows[0].result,
      replayed: true,
    });
    const again = await transferBatch(db, [
      { sender: alice, receiverUpiId: bob.upiId, amount: '10.0000', key },
      { sender: alice, receiverUpiId: bob.upiId, amount: '1.0000' },
    ]);
    expect(again[0]).toEqual({ result: rows[0].result, replayed: true });
    expect(await balances(alice, bob)).toEqual(['89.0000', '11.0000']);
  });

  it('keeps two users apart under one key in one batch: each claim is its owner and key, both transfers run', async () => {
    const [alice, bob, carol] = [await newUser(db, '100'), await newUser(db, '100'), await newUser(db)];
    const key = randomUUID();
    const rows = await transferBatch(db, [
      { sender: alice, receiverUpiId: carol.upiId, amount: '10.0000', key },
      { sender: bob, receiverUpiId: carol.upiId, amount: '20.0000', key },
    ]);
    expect(rows.map((row) => [row.result.code, row.replayed])).toEqual([
      ['completed', false],
      ['completed', false],
    ]);
    expect(rows[1].result.data).toMatchObject({ senderUpiId: bob.upiId, amount: '20.0000' });
    expect(await balances(alice, bob, carol)).toEqual(['90.0000', '80.0000', '30.0000']);
    const records = await db.query(
      `SELECT owner_upi_id, outcome->>'code' AS code FROM idempotency_keys WHERE idempotency_key = $1
       ORDER BY array_position($2::text[], owner_upi_id::text)`,
      [key, [alice.upiId.toLowerCase(), bob.upiId.toLowerCase()]],
    );
    expect(records.rows).toEqual([
      { owner_upi_id: alice.upiId.toLowerCase(), code: 'completed' },
      { owner_upi_id: bob.upiId.toLowerCase(), code: 'completed' },
    ]);
    // Each replays its own answer later, in a batch of both again.
    const again = await transferBatch(db, [
      { sender: bob, receiverUpiId: carol.upiId, amount: '20.0000', key },
      { sender: alice, receiverUpiId: carol.upiId, amount: '10.0000', key },
    ]);
    expect(again).toEqual([
      { result: rows[1].result, replayed: true },
      { result: rows[0].result, replayed: true },
    ]);
  });

  describe('lock order, shared with transfer_funds', () => {
    const pidOf = async (client: Client) =>
      (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;

    // The batch locks its accounts in the order transfer_funds does (lower-cased UPI ID, byte
    // order). Holding the account that comes second, a batch must already hold the first one while
    // it waits: in the opposite order it would wait holding nothing. Deterministic, no race.
    it('locks the account first in UPI ID order first, whatever the items order', async () => {
      const first = await newUser(db, '100', 'a');
      const second = await newUser(db, '100', 'z');
      const [holder, batch, probe] = [
        await connectTestDatabase(),
        await connectTestDatabase(),
        await connectTestDatabase(),
      ];
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT (account_locked($1)).id', [second.id]);
        const pending = transferBatch(batch, [
          { sender: second, receiverUpiId: first.upiId, amount: '5.0000' },
          { sender: first, receiverUpiId: second.upiId, amount: '1.0000' },
        ]);
        await waitForBackendBlockedBy(db, await pidOf(holder), 20_000);
        await probe.query("SET lock_timeout = '100ms'");
        const probed = await probe.query('SELECT (account_locked($1)).id', [first.id]).then(
          () => 'free',
          (error: { code?: string }) => error.code,
        );
        expect(probed).toBe('55P03');
        await holder.query('ROLLBACK');
        expect((await pending).map((row) => row.result.code)).toEqual(['completed', 'completed']);
      } finally {
        await Promise.all([holder.end(), batch.end(), probe.end()]);
      }
    });

    // Two instances, one running single transfers and one running batches, on the same accounts:
    // the batch queues first for the account that comes second, the single transfer then takes the
    // first one and queues behind it. Were the batch's order the opposite of the single path's, it
    // would be granted the second account and then wait for the first, held by the single
    // transfer waiting for the second: a deadlock (40P01). One global order makes it impossible.
    it('a batch and an opposite single transfer queued behind a held account both complete, without deadlock', async () => {
      const a = await newUser(db, '100', 'a');
      const z = await newUser(db, '100', 'z');
      const [holder, batch, single] = [
        await connectTestDatabase(),
        await connectTestDatabase(),
        await connectTestDatabase(),
      ];
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT (account_locked($1)).id', [z.id]);
        const [holderPid, singlePid] = [await pidOf(holder), await pidOf(single)];
        const batched = transferBatch(batch, [
          { sender: z, receiverUpiId: a.upiId, amount: '7.0000' },
          { sender: a, receiverUpiId: z.upiId, amount: '2.0000' },
        ]);
        await waitForBackendBlockedBy(db, holderPid, 20_000);
        const alone = transferFunds(single, a, z.upiId, '3.0000');
        // The single transfer waits too: for a, behind the batch (or, were the orders opposite, for z).
        await waitForBackendWaitingOnLock(db, singlePid, 20_000);
        await holder.query('ROLLBACK');
        const [batchRows, singleRow] = await Promise.all([batched, alone]);
        expect(batchRows.map((row) => row.result.code)).toEqual(['completed', 'completed']);
        expect(singleRow.result.code).toBe('completed');
        expect(await balances(a, z)).toEqual(['102.0000', '98.0000']);
      } finally {
        await Promise.all([holder.end(), batch.end(), single.end()]);
      }
    });
  });

  it('defers an item whose key is held by a request in flight, and runs its neighbours', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const key = randomUUID();
    const holder = await connectTestDatabase();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))`, [
        alice.upiId.toLowerCase(),
        key,
      ]);
      const rows = await transferBatch(db, [
        { sender: alice, receiverUpiId: bob.upiId, amount: '10.0000', key },
        { sender: alice, receiverUpiId: bob.upiId, amount: '5.0000' },
      ]);
      expect(rows.map((row) => row.result.code)).toEqual(['deferred', 'completed']);
      expect(await balances(alice, bob)).toEqual(['95.0000', '5.0000']);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });

  it('pays one receiver from 50 senders in one batch: exact sum, one write per account, chains and invariants intact', async () => {
    const receiver = await newUser(db, '0.0001');
    const senders: MediumUser[] = [];
    for (let i = 1; i <= 50; i++) senders.push(await newUser(db, `${i}.0001`));
    // The session's row-update count includes updates not yet flushed; nothing is flushed inside a transaction.
    const userUpdates = async () =>
      (
        await db.query<{ n: number }>(
          `SELECT n_tup_upd::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'users'`,
        )
      ).rows[0].n;
    await db.query('BEGIN');
    const before = await userUpdates();
    const rows = await transferBatch(
      db,
      senders.map((sender, i) => ({ sender, receiverUpiId: receiver.upiId, amount: `${i + 1}.0001` })),
    );
    const written = (await userUpdates()) - before;
    await db.query('COMMIT');
    expect(rows.every((row) => row.result.code === 'completed')).toBe(true);
    // 51 accounts, each written once (a write per transfer would be 100).
    expect(written).toBe(51);
    // 1 + 2 + ... + 50 plus 50 × 0.0001, on an opening 0.0001.
    expect(await balances(receiver)).toEqual(['1275.0051']);
    expect(await balances(...senders)).toEqual(senders.map(() => '0.0000'));
    const chain = await db.query<{ before: string; previous: string | null }>(
      `SELECT balance_before::text AS before, lag(balance_after::text) OVER (ORDER BY id) AS previous
       FROM ledger_entries WHERE user_id = $1 ORDER BY id`,
      [receiver.id],
    );
    expect(chain.rows).toHaveLength(51);
    for (const link of chain.rows.slice(1)) expect(link.before).toBe(link.previous);

    const ids = [receiver, ...senders].map((user) => user.id);
    // The audit's own checks, on these accounts only: every entry's hash links to the one before
    // it, and each account's head is its newest entry's hash.
    const links = await db.query<{ id: string; linked: boolean }>(
      `SELECT id, encode(hash, 'hex') = ledger_entry_hash(encode(lag(hash) OVER w, 'hex'), user_id,
                 transaction_reference_id, entry_type, amount, balance_before, balance_after, created_at) AS linked
       FROM ledger_entries WHERE user_id = ANY($1) WINDOW w AS (PARTITION BY user_id ORDER BY id)`,
      [ids],
    );
    expect(links.rows).toHaveLength(51 + 100);
    expect(links.rows.filter((link) => !link.linked)).toEqual([]);
    const heads = await db.query(
      `SELECT u.id FROM users u WHERE u.id = ANY($1) AND u.last_entry_hash IS DISTINCT FROM
         (SELECT l.hash FROM ledger_entries l WHERE l.user_id = u.id ORDER BY l.id DESC LIMIT 1)`,
      [ids],
    );
    expect(heads.rows).toEqual([]);
    const scope = await db.query<{ reference_id: string }>('SELECT reference_id FROM users WHERE id = ANY($1)', [ids]);
    const violations = await findLedgerViolations(db, { userReferenceIds: scope.rows.map((row) => row.reference_id) });
    // newUser writes openings straight in SQL, without the treasury's side: that one check does not apply here.
    expect(violations.filter((violation) => !violation.startsWith('every opening credit'))).toEqual([]);
    const events = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_messages() WHERE aggregate_key = ANY($1)`,
      [senders.map((sender) => sender.upiId)],
    );
    expect(events.rows[0].n).toBe(50);
  });
  it('publishes the same TransferCompleted bytes from a batch as from a single transfer', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const [alone] = [await transferFunds(db, alice, bob.upiId, '1.2500')];
    const [batched] = await transferBatch(db, [{ sender: alice, receiverUpiId: bob.upiId, amount: '1.2500' }]);
    const payloadOf = async (referenceId: string) =>
      (
        await db.query<{ payload: string; event_id: string; id: string }>(
          `SELECT o.payload, o.event_id::text, t.id::text FROM outbox_messages() o
           JOIN transactions t ON t.reference_id = $1::uuid
           WHERE o.payload::jsonb->>'transactionReferenceId' = $1::text`,
          [referenceId],
        )
      ).rows[0];
    for (const { result } of [alone, batched]) {
      const { payload, event_id, id } = await payloadOf(result.data.referenceId);
      expect(payload).toBe(
        `{"eventId":"${event_id}","eventType":"TransferCompleted","occurredAt":"${result.data.createdAt}",` +
          `"transactionId":${id},"transactionReferenceId":"${result.data.referenceId}",` +
          `"senderUpiId":${JSON.stringify(alice.upiId)},"receiverUpiId":${JSON.stringify(bob.upiId)},` +
          `"amount":"1.2500","currency":"INR","note":null}`,
      );
    }
  });

  it('runs on generic plans of key lookups: no statement planned on every call, no table scanned whole', async () => {
    // A custom plan for an array parameter always looks cheaper for a few items, so PostgreSQL's
    // default (auto) would plan those statements again on every call; and a plan made while a
    // table is small scans it whole, for as long as the plan lives (docs/decisions/0011-generic-plans-for-key-lookups.md).
    const settings = await db.query<{ proname: string; proconfig: string[] | null }>(
      `SELECT proname, proconfig FROM pg_proc WHERE proname IN ('transfer_funds_batch', 'limits_begin') ORDER BY proname`,
    );
    expect(settings.rows).toEqual([
      { proname: 'limits_begin', proconfig: ['plan_cache_mode=force_generic_plan', 'enable_seqscan=off'] },
      { proname: 'transfer_funds_batch', proconfig: ['plan_cache_mode=force_generic_plan', 'enable_seqscan=off'] },
    ]);
  });

  it('reads every table by key: on a new database, where a scan looks cheaper, no batch scans users or keys whole', async () => {
    const scratch = await createScratchDatabase();
    const fresh = new Client({ connectionString: scratch.url });
    await fresh.connect();
    try {
      const users: MediumUser[] = [];
      for (let i = 0; i < 6; i++) users.push(await newUser(fresh, '100'));
      // This session's own counters, flushed when it goes idle after the first query.
      const seqScans = async () => {
        await fresh.query('SELECT pg_stat_force_next_flush()');
        await fresh.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await fresh.query<{ relname: string; seq_scan: string }>(
          `SELECT relname, seq_scan::text FROM pg_stat_user_tables
           WHERE relname IN ('users', 'idempotency_keys', 'transactions') ORDER BY relname`,
        );
        return rows;
      };
      const before = await seqScans();
      for (let round = 0; round < 8; round++) {
        const rows = await transferBatch(
          fresh,
          [0, 1, 2].map((i) => ({ sender: users[i], receiverUpiId: users[i + 3].upiId, amount: '1.0000' })),
        );
        expect(rows.map((row) => row.result.code)).toEqual(['completed', 'completed', 'completed']);
      }
      expect(await seqScans()).toEqual(before);
    } finally {
      await fresh.end();
      await scratch.drop();
    }
  });
});
