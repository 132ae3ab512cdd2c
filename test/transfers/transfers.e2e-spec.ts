import type { Client } from 'pg';
import { RetentionJob } from '../../src/partitions/retention.job';
import { requestHash } from '../../src/idempotency/idempotency-key';
import { FakeUpiProvider } from '../support/fake-upi-provider';
import { backendsBlockedBy, waitForBackendBlockedBy, watchForBackendBlockedBy } from '../medium/support/locks';
import { newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { balanceOf, connectTestDatabase, countTransactionsBetween, idempotencyRow } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

/** The per-user limit has its own tests below; elsewhere it must not get in the way of concurrency. */
async function openServiceAndDatabase(): Promise<{ t: TestApp; db: Client }> {
  return { t: await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' }), db: await connectTestDatabase() };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('transfers on one service', () => {
  let t: TestApp;
  let db: Client;
  beforeAll(async () => ({ t, db } = await openServiceAndDatabase()));
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  describe('POST /api/v1/transactions', () => {
    const pair = (senderBalance: number | string = 1000, receiverBalance: number | string = 0) =>
      Promise.all([t.api.registerUser({ balance: senderBalance }), t.api.registerUser({ balance: receiverBalance })]);

    it('moves money: 201, the transaction, Location, both balances and ledger rows', async () => {
      const [alice, bob] = await pair(500, 20);
      const response = await t.api.transfer(alice, bob.upiId, '120.25', { note: 'dinner' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        transactionId: expect.any(Number),
        referenceId: expect.stringMatching(UUID),
        senderUpiId: alice.upiId,
        receiverUpiId: bob.upiId,
        amount: 120.25,
        status: 'COMPLETED',
        type: 'TRANSFER',
        note: 'dinner',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(response.text).toContain('"amount":120.2500');
      expect(response.headers.get('location')).toBe(`/api/v1/transactions/${response.body.referenceId}`);
      expect(await balanceOf(db, alice.upiId)).toBe('379.7500');
      expect(await balanceOf(db, bob.upiId)).toBe('140.2500');
      const entries = await db.query(
        `SELECT l.entry_type, l.amount::text, l.balance_before::text, l.balance_after::text, u.upi_id
       FROM ledger_entries l JOIN users u ON u.id = l.user_id
       WHERE l.transaction_reference_id = $1 ORDER BY l.entry_type DESC`,
        [response.body.referenceId],
      );
      expect(entries.rows).toEqual([
        {
          entry_type: 'DEBIT',
          amount: '120.2500',
          balance_before: '500.0000',
          balance_after: '379.7500',
          upi_id: alice.upiId,
        },
        {
          entry_type: 'CREDIT',
          amount: '120.2500',
          balance_before: '20.0000',
          balance_after: '140.2500',
          upi_id: bob.upiId,
        },
      ]);
    });

    it('records exactly one outbox event with the documented payload (docs/api-guide.md)', async () => {
      const [alice, bob] = await pair();
      const response = await t.api.transfer(alice, bob.upiId, 100, { note: 'rent' });
      const events = await db.query(
        'SELECT event_type, aggregate_key, payload FROM outbox_messages() WHERE payload::jsonb @> $1',
        [JSON.stringify({ transactionReferenceId: response.body.referenceId })],
      );
      expect(events.rows).toHaveLength(1);
      expect(events.rows[0].event_type).toBe('TransferCompleted');
      expect(events.rows[0].aggregate_key).toBe(alice.upiId);
      expect(JSON.parse(events.rows[0].payload)).toEqual({
        eventId: expect.stringMatching(UUID),
        eventType: 'TransferCompleted',
        occurredAt: response.body.createdAt,
        transactionId: response.body.transactionId,
        transactionReferenceId: response.body.referenceId,
        senderUpiId: alice.upiId,
        receiverUpiId: bob.upiId,
        amount: '100.0000',
        currency: 'INR',
        note: 'rent',
      });
    });

    it('accepts a sender UPI ID that differs from the token only in case, and an absent note', async () => {
      const [alice, bob] = await pair();
      const response = await t.api.transfer(alice, bob.upiId.toUpperCase(), 5, {
        senderUpiId: alice.upiId.toUpperCase(),
      });
      expect(response.status).toBe(201);
      expect(response.body.note).toBeNull();
      expect(await balanceOf(db, bob.upiId)).toBe('5.0000');
    });

    describe('rule 1: the sender must be the caller, checked before any lock or write', () => {
      it('answers 403 forbidden-operation at once, even while both accounts are locked', async () => {
        const [alice, bob, mallory] = await Promise.all([
          t.api.registerUser({ balance: 100 }),
          t.api.registerUser({ balance: 0 }),
          t.api.registerUser({ balance: 0 }),
        ]);
        const locker = await connectTestDatabase();
        try {
          await locker.query('BEGIN');
          await locker.query('SELECT id FROM users WHERE lower(upi_id) IN (lower($1), lower($2)) FOR UPDATE', [
            alice.upiId,
            bob.upiId,
          ]);
          const key = newIdempotencyKey();
          const started = Date.now();
          const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
          // Should the check come after the locks, the request would queue behind the locker: that
          // is seen at once (not as a test timeout), and the locker's rollback lets it go.
          const watch = watchForBackendBlockedBy(db, lockerPid);
          const response = await Promise.race([
            t.api.transfer(mallory, bob.upiId, 50, { senderUpiId: alice.upiId, key }),
            watch.blocked,
          ]);
          watch.stop();
          expect(response).not.toBe('blocked');
          if (response === 'blocked') return;
          expect(await backendsBlockedBy(db, lockerPid)).toBe(0);
          expect(Date.now() - started).toBeLessThan(10_000);
          expectProblem(response, 403, 'forbidden-operation');
          expect(await idempotencyRow(db, mallory.upiId, key)).toBeUndefined();
        } finally {
          await locker.query('ROLLBACK');
          await locker.end();
        }
        expect(await balanceOf(db, alice.upiId)).toBe('100.0000');
        expect(await countTransactionsBetween(db, alice.upiId, bob.upiId)).toBe(0);
      });
    });

    describe('rule 2: self-transfer', () => {
      it('answers 400 self-transfer and changes nothing', async () => {
        const alice = await t.api.registerUser({ balance: 100 });
        const response = await t.api.transfer(alice, alice.upiId.toUpperCase(), 10);
        expectProblem(response, 400, 'self-transfer');
        expect(await balanceOf(db, alice.upiId)).toBe('100.0000');
      });
    });

    describe('rule 3: insufficient balance', () => {
      it('answers 422 insufficient-balance naming both amounts, and changes nothing', async () => {
        const [alice, bob] = await pair(50);
        const response = await t.api.transfer(alice, bob.upiId, '50.0001');
        expectProblem(response, 422, 'insufficient-balance');
        expect(response.body.detail).toContain('50.0000');
        expect(response.body.detail).toContain('50.0001');
        expect([await balanceOf(db, alice.upiId), await balanceOf(db, bob.upiId)]).toEqual(['50.0000', '0.0000']);
        expect(await countTransactionsBetween(db, alice.upiId, bob.upiId)).toBe(0);
      });

      it('allows spending the whole balance to exactly zero', async () => {
        const [alice, bob] = await pair('75.5');
        expect((await t.api.transfer(alice, bob.upiId, '75.5')).status).toBe(201);
        expect(await balanceOf(db, alice.upiId)).toBe('0.0000');
      });
    });

    describe('rule 4: fixed lock order', () => {
      it('completes fifty concurrent opposite-direction transfers without deadlock or 500', async () => {
        const [alice, bob] = await pair(1000, 1000);
        const responses = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            i % 2 === 0 ? t.api.transfer(alice, bob.upiId, 10 + i) : t.api.transfer(bob, alice.upiId, 10 + i),
          ),
        );
        expect(responses.map((r) => r.status)).toEqual(Array(50).fill(201));
        const sent = (parity: number) =>
          Array.from({ length: 50 }, (_, i) => i)
            .filter((i) => i % 2 === parity)
            .reduce((sum, i) => sum + 10 + i, 0);
        const aliceExpected = 1000 - sent(0) + sent(1);
        expect(await balanceOf(db, alice.upiId)).toBe(`${aliceExpected}.0000`);
        expect(await balanceOf(db, bob.upiId)).toBe(`${2000 - aliceExpected}.0000`);
        expect(await countTransactionsBetween(db, alice.upiId, bob.upiId)).toBe(50);
      });
    });

    describe('rule 5: simultaneous withdrawals beyond the balance', () => {
      it('balance 150, ten simultaneous transfers of 100: one 201, nine 422, final balance 50.0000', async () => {
        const sender = await t.api.registerUser({ balance: 150 });
        const receivers = await Promise.all(Array.from({ length: 10 }, () => t.api.registerUser({ balance: 0 })));
        const responses = await Promise.all(receivers.map((r) => t.api.transfer(sender, r.upiId, 100)));
        const statuses = responses.map((r) => r.status).sort();
        expect(statuses).toEqual([201, 422, 422, 422, 422, 422, 422, 422, 422, 422]);
        for (const failed of responses.filter((r) => r.status === 422))
          expectProblem(failed, 422, 'insufficient-balance');
        expect(await balanceOf(db, sender.upiId)).toBe('50.0000');
        const profile = await t.api.get(`/api/v1/users/${sender.referenceId}`, sender.token);
        expect(profile.text).toContain('"balance":50.0000');
        const debits = await db.query(
          `SELECT count(*)::int AS n FROM ledger_entries l JOIN users u ON u.id = l.user_id
         WHERE lower(u.upi_id) = lower($1) AND l.entry_type = 'DEBIT'`,
          [sender.upiId],
        );
        expect(debits.rows[0].n).toBe(1);
      });
    });

    describe('request validation (422) changes nothing', () => {
      it.each([
        ['amount zero', { amount: 0 }, 'amount'],
        ['amount below 0.01', { amount: '0.009' }, 'amount'],
        ['amount rounding below 0.01', { amount: '0.00994' }, 'amount'],
        ['amount negative', { amount: -5 }, 'amount'],
        ['amount above 1000000.00', { amount: '1000000.0001' }, 'amount'],
        ['amount not a number', { amount: 'ten' }, 'amount'],
        ['amount missing', { amount: undefined }, 'amount'],
        ['note over 255 characters', { note: 'n'.repeat(256) }, 'note'],
        ['receiver blank', { receiverUpiId: '' }, 'receiverUpiId'],
        ['receiver malformed', { receiverUpiId: 'bob' }, 'receiverUpiId'],
        [
          'receiver over 100 characters',
          { receiverUpiId: `${'b'.repeat(64)}@${'c'.repeat(32)}.extra.long` },
          'receiverUpiId',
        ],
        ['sender missing', { senderUpiId: undefined }, 'senderUpiId'],
      ])('%s', async (_case, overrides, field) => {
        const [alice, bob] = await pair(100);
        const key = newIdempotencyKey();
        const body = { senderUpiId: alice.upiId, receiverUpiId: bob.upiId, amount: 10, ...overrides };
        const response = await t.api.post('/api/v1/transactions', body, {
          token: alice.token,
          headers: { 'idempotency-key': key },
        });
        expectProblem(response, 422);
        expect(response.body.errors).toEqual(expect.objectContaining({ [field]: expect.any(String) }));
        expect(await balanceOf(db, alice.upiId)).toBe('100.0000');
        expect(await idempotencyRow(db, alice.upiId, key)).toBeUndefined();
      });

      it('accepts the extremes 0.01 and 1000000.00, rounding HALF_EVEN first', async () => {
        const [alice, bob] = await pair('1000001');
        expect((await t.api.transfer(alice, bob.upiId, '0.01')).status).toBe(201);
        expect((await t.api.transfer(alice, bob.upiId, '1000000.00')).status).toBe(201);
        const rounded = await t.api.transfer(alice, bob.upiId, '0.00995');
        expect(rounded.status).toBe(201);
        expect(rounded.text).toContain('"amount":0.0100');
        // A tie whose HALF_UP rounding would differ: 0.01005 -> 0.0100 (HALF_EVEN), not 0.0101.
        const tie = await t.api.transfer(alice, bob.upiId, '0.01005');
        expect(tie.status).toBe(201);
        expect(tie.text).toContain('"amount":0.0100');
      });

      it('answers 400 for malformed JSON', async () => {
        const alice = await t.api.registerUser();
        const response = await t.api.request('POST', '/api/v1/transactions', {
          token: alice.token,
          rawBody: '{"amount": 1',
          headers: { 'idempotency-key': newIdempotencyKey() },
        });
        expectProblem(response, 400, 'invalid-request');
      });
    });

    it('answers 404 user-not-found for an unregistered receiver, and changes nothing', async () => {
      const alice = await t.api.registerUser({ balance: 100 });
      const response = await t.api.transfer(alice, uniqueUpiId('ghost'), 10);
      expectProblem(response, 404, 'user-not-found');
      expect(await balanceOf(db, alice.upiId)).toBe('100.0000');
    });

    it('answers 401 without a token', async () => {
      const [alice, bob] = await pair();
      const response = await t.api.post(
        '/api/v1/transactions',
        { senderUpiId: alice.upiId, receiverUpiId: bob.upiId, amount: 1 },
        { headers: { 'idempotency-key': newIdempotencyKey() } },
      );
      expectProblem(response, 401);
    });
  });

  describe('idempotency', () => {
    const pair = () => Promise.all([t.api.registerUser({ balance: 1000 }), t.api.registerUser({ balance: 0 })]);

    it('rule 6: a replay returns the identical body, marked Idempotent-Replayed, and debits once', async () => {
      const [alice, bob] = await pair();
      const key = newIdempotencyKey();
      const first = await t.api.transfer(alice, bob.upiId, 100, { key, note: 'once' });
      const replay = await t.api.transfer(alice, bob.upiId, '100.00', { key, note: 'once' });
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('location')).toBe(first.headers.get('location'));
      expect(await balanceOf(db, alice.upiId)).toBe('900.0000');
      expect(await countTransactionsBetween(db, alice.upiId, bob.upiId)).toBe(1);
    });

    it('rule 6: a stored 422 is replayed even after the balance would cover it', async () => {
      const [alice, bob] = await Promise.all([
        t.api.registerUser({ balance: 10 }),
        t.api.registerUser({ balance: 500 }),
      ]);
      const key = newIdempotencyKey();
      const first = await t.api.transfer(alice, bob.upiId, 100, { key });
      expectProblem(first, 422, 'insufficient-balance');
      expect((await t.api.transfer(bob, alice.upiId, 200)).status).toBe(201);
      const replay = await t.api.transfer(alice, bob.upiId, 100, { key });
      expect(replay.status).toBe(422);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await balanceOf(db, alice.upiId)).toBe('210.0000');
    });

    it('rule 7: the same key with a different payload is 400 and changes nothing', async () => {
      const [alice, bob] = await pair();
      const key = newIdempotencyKey();
      expect((await t.api.transfer(alice, bob.upiId, 100, { key })).status).toBe(201);
      const reused = await t.api.transfer(alice, bob.upiId, 101, { key });
      expectProblem(reused, 400, 'idempotency-key-reused');
      const otherNote = await t.api.transfer(alice, bob.upiId, 100, { key, note: 'different' });
      expectProblem(otherNote, 400, 'idempotency-key-reused');
      expect(await balanceOf(db, alice.upiId)).toBe('900.0000');
    });

    it('scopes keys per user: the same key from two users names two transfers', async () => {
      const [alice, bob] = await pair();
      const carol = await t.api.registerUser({ balance: 1000 });
      const key = newIdempotencyKey();
      expect((await t.api.transfer(alice, bob.upiId, 10, { key })).status).toBe(201);
      const second = await t.api.transfer(carol, bob.upiId, 10, { key });
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      expect(await balanceOf(db, bob.upiId)).toBe('20.0000');
    });

    it('two identical concurrent requests with one key debit once', async () => {
      const [alice, bob] = await pair();
      const key = newIdempotencyKey();
      const [a, b] = await Promise.all([
        t.api.transfer(alice, bob.upiId, 250, { key }),
        t.api.transfer(alice, bob.upiId, 250, { key }),
      ]);
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.text).toBe(b.text);
      expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')].sort()).toEqual(
        [null, 'true'].sort(),
      );
      expect(await balanceOf(db, alice.upiId)).toBe('750.0000');
      expect(await countTransactionsBetween(db, alice.upiId, bob.upiId)).toBe(1);
    });

    /** A record of the key written, not committed, by a writer that does not take the key's lock. */
    const beginKeyWithoutItsLock = async (twin: Client, upiId: string, key: string) => {
      await twin.query('BEGIN');
      await twin.query(
        `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status)
         VALUES (lower($1), $2, 'in-flight', 'PROCESSING')`,
        [upiId, key],
      );
    };

    it('rule 8: waits up to 2 s for a twin in flight, then 409; succeeds once the twin is gone', async () => {
      const [alice, bob] = await pair();
      const key = newIdempotencyKey();
      const twin = await connectTestDatabase();
      try {
        await beginKeyWithoutItsLock(twin, alice.upiId, key);
        const started = Date.now();
        const response = await t.api.transfer(alice, bob.upiId, 10, { key });
        const waited = Date.now() - started;
        expectProblem(response, 409, 'idempotency-key-in-flight');
        expect(waited).toBeGreaterThanOrEqual(1900);
        expect(waited).toBeLessThan(15_000);
      } finally {
        await twin.query('ROLLBACK');
        await twin.end();
      }
      expect(await balanceOf(db, alice.upiId)).toBe('1000.0000');
      const retry = await t.api.transfer(alice, bob.upiId, 10, { key });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
    });

    it('rule 8: replays the twin once it commits within the wait', async () => {
      const [alice, bob] = await pair();
      const key = newIdempotencyKey();
      const hash = requestHash({
        senderUpiId: alice.upiId.toLowerCase(),
        receiverUpiId: bob.upiId.toLowerCase(),
        amount: '10.0000',
        note: null,
      });
      const twin = await connectTestDatabase();
      try {
        // The twin is the same request, mid-transfer on another connection: its key is claimed, its money moved.
        await twin.query('BEGIN');
        const twinOutcome = await twin.query(
          `SELECT result FROM transfer_funds(lower($1), $2, $3, $1, $4, 10, NULL, gen_random_uuid(), gen_random_uuid(),
             '{"requestId":"twin-request","instance":"/api/v1/transactions"}')`,
          [alice.upiId, key, hash, bob.upiId],
        );
        const twinReferenceId = twinOutcome.rows[0].result.data.referenceId;
        const pending = t.api.transfer(alice, bob.upiId, 10, { key });
        await waitForBackendBlockedBy(db, (await twin.query('SELECT pg_backend_pid() AS pid')).rows[0].pid, 10_000);
        await twin.query('COMMIT');
        const response = await pending;
        expect(response.status).toBe(201);
        expect(response.headers.get('idempotent-replayed')).toBe('true');
        expect(response.body.referenceId).toBe(twinReferenceId);
        expect(response.headers.get('location')).toBe(`/api/v1/transactions/${twinReferenceId}`);
      } finally {
        await twin.end();
      }
      expect(await balanceOf(db, alice.upiId)).toBe('990.0000');
      expect(await countTransactionsBetween(db, alice.upiId, bob.upiId)).toBe(1);
    });

    it('replays the same bytes after a restart: time, request id and path come from the stored outcome', async () => {
      const [alice, bob] = await pair();
      const [created, refused] = [newIdempotencyKey(), newIdempotencyKey()];
      const first = await t.api.transfer(alice, bob.upiId, 100, { key: created });
      const firstProblem = await t.api.transfer(alice, bob.upiId, 5000, { key: refused });
      expectProblem(firstProblem, 422, 'insufficient-balance');
      const restarted = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
      try {
        const replay = await restarted.api.transfer(alice, bob.upiId, 100, { key: created });
        const problemReplay = await restarted.api.transfer(alice, bob.upiId, 5000, { key: refused });
        expect(replay.text).toBe(first.text);
        expect(problemReplay.text).toBe(firstProblem.text);
        expect(problemReplay.headers.get('content-type')).toBe(firstProblem.headers.get('content-type'));
        expect(problemReplay.headers.get('x-request-id')).not.toBe(firstProblem.headers.get('x-request-id'));
        expect(problemReplay.body.requestId).toBe(firstProblem.headers.get('x-request-id'));
      } finally {
        await restarted.close();
      }
      expect(await balanceOf(db, alice.upiId)).toBe('900.0000');
    });

    it('rule 8: a twin in flight that commits while the transfer waits for it: 409, nothing moves', async () => {
      const [alice, bob] = await pair();
      const key = newIdempotencyKey();
      const twin = await connectTestDatabase();
      try {
        await beginKeyWithoutItsLock(twin, alice.upiId, key);
        const pending = t.api.transfer(alice, bob.upiId, 10, { key });
        await waitForBackendBlockedBy(db, (await twin.query('SELECT pg_backend_pid() AS pid')).rows[0].pid, 10_000);
        await twin.query('COMMIT');
        expectProblem(await pending, 409, 'idempotency-key-in-flight');
      } finally {
        await twin.end();
      }
      expect(await balanceOf(db, alice.upiId)).toBe('1000.0000');
    });

    it('never takes over or replays a committed row without an outcome, however old: 409, nothing moves', async () => {
      const [alice, bob] = await pair();
      const key = newIdempotencyKey();
      await db.query(
        `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, created_at)
       VALUES (lower($1), $2, 'crashed-node', 'PROCESSING', now() - interval '3 minutes')`,
        [alice.upiId, key],
      );
      expectProblem(await t.api.transfer(alice, bob.upiId, 40, { key }), 409, 'idempotency-key-in-flight');
      expect(await idempotencyRow(db, alice.upiId, key)).toEqual({ status: 'PROCESSING', response_status: null });
      expect(await balanceOf(db, alice.upiId)).toBe('1000.0000');
    });

    it('answers 409 for a fresh PROCESSING claim without waiting for it', async () => {
      const [alice, bob] = await pair();
      const key = newIdempotencyKey();
      await db.query(
        `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, created_at)
       VALUES (lower($1), $2, 'other-node', 'PROCESSING', now() - interval '30 seconds')`,
        [alice.upiId, key],
      );
      expectProblem(await t.api.transfer(alice, bob.upiId, 40, { key }), 409, 'idempotency-key-in-flight');
      expect(await balanceOf(db, alice.upiId)).toBe('1000.0000');
    });

    describe('rule 9: the Idempotency-Key header', () => {
      it.each([
        ['missing', undefined, 'idempotency-key-missing'],
        ['empty', '', 'idempotency-key-missing'],
        ['too long', 'k'.repeat(256), 'idempotency-key-invalid'],
        ['with a space', 'two words', 'idempotency-key-invalid'],
        ['with a slash', 'a/b', 'idempotency-key-invalid'],
      ])('answers 400 when %s', async (_case, key, slug) => {
        const [alice, bob] = await pair();
        const headers: Record<string, string> = key === undefined ? {} : { 'idempotency-key': key };
        const response = await t.api.post(
          '/api/v1/transactions',
          { senderUpiId: alice.upiId, receiverUpiId: bob.upiId, amount: 1 },
          { token: alice.token, headers },
        );
        expectProblem(response, 400, slug);
        expect(await balanceOf(db, alice.upiId)).toBe('1000.0000');
      });

      it('accepts 255 characters of the allowed alphabet', async () => {
        const [alice, bob] = await pair();
        const key = `Ab9_.:-${'x'.repeat(248)}`;
        expect((await t.api.transfer(alice, bob.upiId, 1, { key })).status).toBe(201);
      });
    });

    it('rule 10: retention drops the keys older than IDEMPOTENCY_TTL_HOURS with their partition and keeps the rest', async () => {
      const [alice, bob] = await pair();
      const expired = newIdempotencyKey();
      const fresh = newIdempotencyKey();
      expect((await t.api.transfer(alice, bob.upiId, 1, { key: expired })).status).toBe(201);
      expect((await t.api.transfer(alice, bob.upiId, 1, { key: fresh })).status).toBe(201);
      // Into the daily partition of three days ago, a whole day older than the TTL (24 h).
      await db.query(`SELECT ensure_partitions('idempotency_keys', now() - interval '3 days', now())`);
      await db.query(
        `UPDATE idempotency_keys SET created_at = now() - interval '3 days' WHERE owner_upi_id = lower($1) AND idempotency_key = $2`,
        [alice.upiId, expired],
      );
      const purged = await t.app.get(RetentionJob).run();
      expect(purged).toBeGreaterThanOrEqual(1);
      expect(await idempotencyRow(db, alice.upiId, expired)).toBeUndefined();
      expect(await idempotencyRow(db, alice.upiId, fresh)).toEqual({ status: 'SUCCESS', response_status: 201 });
      // After the purge the key names a new request.
      const reused = await t.api.transfer(alice, bob.upiId, 1, { key: expired });
      expect(reused.status).toBe(201);
      expect(reused.headers.get('idempotent-replayed')).toBeNull();
    });
  });
});

describe('per-user rate limit', () => {
  let t: TestApp;
  let db: Client;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '3' });
    db = await connectTestDatabase();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  async function burst(sender: RegisteredUser, receiver: RegisteredUser, count: number) {
    return Promise.all(Array.from({ length: count }, () => t.api.transfer(sender, receiver.upiId, 1)));
  }

  it('answers 429 rate-limit-exceeded with Retry-After: 1 beyond RATE_LIMIT_PER_SECOND', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 100 }), t.api.registerUser()]);
    const responses = await burst(alice, bob, 6);
    const limited = responses.filter((r) => r.status === 429);
    expect(responses.filter((r) => r.status === 201).length).toBe(3);
    expect(limited.length).toBe(3);
    for (const response of limited) {
      expectProblem(response, 429, 'rate-limit-exceeded');
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.body.detail).toContain('3');
    }
  });

  it('answers in the order 403, 429, then 400 for the key before 422 for the body', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 100 }), t.api.registerUser()]);
    const bad = (senderUpiId: string) =>
      t.api.post(
        '/api/v1/transactions',
        { senderUpiId, receiverUpiId: bob.upiId, amount: 'ten' },
        { token: alice.token },
      );
    // Wrong sender, no key, bad body: 403, and it does not spend the limit.
    const forbidden = await Promise.all([bad(bob.upiId), bad(bob.upiId), bad(bob.upiId), bad(bob.upiId)]);
    for (const response of forbidden) expectProblem(response, 403, 'forbidden-operation');
    // Right sender, no key, bad body: the first three pass the limit and fail on the key (400, not
    // 422); the rest are 429 whatever else is wrong with them.
    const responses = await Promise.all(Array.from({ length: 5 }, () => bad(alice.upiId)));
    const slugs = responses.map((r) => `${r.status} ${String(r.body.type).split('/').pop()}`).sort();
    expect(slugs).toEqual([
      '400 idempotency-key-missing',
      '400 idempotency-key-missing',
      '400 idempotency-key-missing',
      '429 rate-limit-exceeded',
      '429 rate-limit-exceeded',
    ]);
    expect(await balanceOf(db, alice.upiId)).toBe('100.0000');
  });

  it('limits each user separately and lets a user in again after a second', async () => {
    const [alice, bob, carol] = await Promise.all([
      t.api.registerUser({ balance: 100 }),
      t.api.registerUser({ balance: 100 }),
      t.api.registerUser(),
    ]);
    expect((await burst(alice, carol, 4)).filter((r) => r.status === 429).length).toBe(1);
    expect((await burst(bob, carol, 3)).map((r) => r.status)).toEqual([201, 201, 201]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await t.api.transfer(alice, carol.upiId, 1)).status).toBe(201);
  });
});

describe('replays while the UPI verification provider is down', () => {
  let provider: FakeUpiProvider;
  let t: TestApp;
  let db: Client;
  beforeAll(async () => {
    provider = await new FakeUpiProvider().start();
    t = await startTestApp({
      RATE_LIMIT_PER_SECOND: '1000',
      UPI_VERIFICATION_URL: provider.url,
      UPI_VERIFICATION_CACHE_TTL_MS: '0',
    });
    db = await connectTestDatabase();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
    await provider.stop();
  });
  afterEach(() => {
    provider.mode = 'accept';
  });

  it('still checks the payload: the same key with another amount is 400, not the stored 201', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 100 }), t.api.registerUser()]);
    const key = newIdempotencyKey();
    expect((await t.api.transfer(alice, bob.upiId, 10, { key })).status).toBe(201);
    provider.mode = 'fail';
    expectProblem(await t.api.transfer(alice, bob.upiId, 11, { key }), 400, 'idempotency-key-reused');
    const replay = await t.api.transfer(alice, bob.upiId, 10, { key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await balanceOf(db, alice.upiId)).toBe('90.0000');
  });
});
