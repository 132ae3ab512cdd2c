import { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { balanceOf, createScratchDatabase } from '../support/db';
import { startTestApp, type TestApp } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** On a database of its own, so the treasury's balance and the global sum are this file's alone. */
describe('the treasury and deposits', () => {
  let t: TestApp;
  let db: Client;
  let drop: () => Promise<void>;
  let admin: RegisteredUser;
  const adminUpiId = uniqueUpiId('admin');

  beforeAll(async () => {
    const scratch = await createScratchDatabase();
    drop = scratch.drop;
    t = await startTestApp({ DATABASE_URL: scratch.url, ADMIN_UPI_IDS: adminUpiId, RATE_LIMIT_PER_SECOND: '1000' });
    db = new Client({ connectionString: scratch.url });
    await db.connect();
    admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
  });

  afterAll(async () => {
    await db.end();
    await t.close();
    await drop();
  });

  const treasuryBalance = async () =>
    (await db.query(`SELECT sum(balance)::text AS balance FROM users WHERE kind = 'TREASURY'`)).rows[0]
      .balance as string;
  const globalSum = async () => (await db.query('SELECT sum(balance)::text AS s FROM users')).rows[0].s as string;
  const countTransactions = async () =>
    (await db.query('SELECT count(*)::int AS n FROM transactions')).rows[0].n as number;

  function deposit(body: Record<string, unknown>, options: { key?: string; token?: string } = {}) {
    return t.api.post('/api/v1/admin/deposits', body, {
      token: options.token ?? admin.token,
      headers: { 'idempotency-key': options.key ?? newIdempotencyKey() },
    });
  }

  describe('opening balances', () => {
    it('come from the treasury: the user CREDIT and a treasury DEBIT under one reference, global sum 0', async () => {
      const before = await treasuryBalance();
      const alice = await t.api.registerUser({ balance: '250.5' });
      const entries = await db.query(
        `SELECT u.kind, l.entry_type, l.amount::text, l.transaction_id
         FROM ledger_entries l JOIN users u ON u.id = l.user_id
         WHERE l.transaction_reference_id = (SELECT transaction_reference_id FROM ledger_entries
                                             WHERE user_id = (SELECT id FROM users WHERE upi_id = $1))
         ORDER BY l.entry_type`,
        [alice.upiId],
      );
      expect(entries.rows).toEqual([
        { kind: 'USER', entry_type: 'CREDIT', amount: '250.5000', transaction_id: null },
        { kind: 'TREASURY', entry_type: 'DEBIT', amount: '250.5000', transaction_id: null },
      ]);
      expect(Number(await treasuryBalance())).toBeCloseTo(Number(before) - 250.5, 4);
      expect(await globalSum()).toBe('0.0000');
      // The user's own ledger still shows the one CREDIT, as before.
      const ledger = await t.api.get(`/api/v1/users/${alice.referenceId}/ledger`, alice.token);
      expect(ledger.body.content).toEqual([expect.objectContaining({ entryType: 'CREDIT', amount: 250.5 })]);
    });

    it('write nothing for a zero opening balance', async () => {
      const zero = await t.api.registerUser({ balance: 0 });
      const rows = await db.query(
        'SELECT count(*)::int AS n FROM ledger_entries WHERE user_id = (SELECT id FROM users WHERE upi_id = $1)',
        [zero.upiId],
      );
      expect(rows.rows[0].n).toBe(0);
    });
  });

  describe('the treasury is not a user', () => {
    it('is not listed, cannot log in, register its name or receive a transfer', async () => {
      const alice = await t.api.registerUser({ balance: 10 });
      const listed: string[] = [];
      for (let page = 0; ; page++) {
        const response = await t.api.get(`/api/v1/users?size=100&page=${page}`, admin.token);
        expect(response.status).toBe(200);
        listed.push(...response.body.content.map((u: { upiId: string }) => u.upiId.toLowerCase()));
        if (response.body.last) break;
      }
      const users = await db.query(`SELECT count(*)::int AS n FROM users WHERE kind = 'USER'`);
      expect(listed).toHaveLength(users.rows[0].n);
      expect(listed.filter((upiId) => upiId.startsWith('treasury'))).toEqual([]);
      expect((await t.api.get('/api/v1/users/balance/-1000000000000', admin.token)).text).not.toContain('treasury');

      expect((await t.api.post('/api/v1/auth/login', { upiId: 'treasury' })).status).toBe(422);
      const register = await t.api.post('/api/v1/users', {
        name: 'Fake',
        upiId: 'treasury',
        phoneNumber: '9876543210',
        balance: 1,
      });
      expect(register.status).toBe(422);
      expect((await t.api.transfer(alice, 'treasury', 1)).status).toBe(422);
      expect((await deposit({ upiId: 'treasury', amount: 1 })).status).toBe(422);
      expect(await balanceOf(db, alice.upiId)).toBe('10.0000');
    });
  });

  describe('POST /api/v1/admin/deposits', () => {
    it('credits the user from the treasury: 201 DEPOSIT transaction, Location, ledger rows, readable by the user', async () => {
      const alice = await t.api.registerUser({ balance: 100 });
      const treasuryBefore = await treasuryBalance();
      const response = await deposit({ upiId: alice.upiId.toUpperCase(), amount: '5000.125', note: 'bank wire' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        transactionId: expect.any(Number),
        referenceId: expect.stringMatching(UUID),
        senderUpiId: 'treasury',
        receiverUpiId: alice.upiId,
        amount: 5000.125,
        status: 'COMPLETED',
        type: 'DEPOSIT',
        note: 'bank wire',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(response.text).toContain('"amount":5000.1250');
      expect(response.headers.get('location')).toBe(`/api/v1/transactions/${response.body.referenceId}`);
      expect(await balanceOf(db, alice.upiId)).toBe('5100.1250');
      expect(Number(await treasuryBalance())).toBeCloseTo(Number(treasuryBefore) - 5000.125, 4);
      expect(await globalSum()).toBe('0.0000');

      const entries = await db.query(
        `SELECT u.kind, l.entry_type, l.amount::text, l.balance_before::text, l.balance_after::text
         FROM ledger_entries l JOIN users u ON u.id = l.user_id
         WHERE l.transaction_reference_id = $1 ORDER BY l.entry_type`,
        [response.body.referenceId],
      );
      expect(entries.rows).toEqual([
        {
          kind: 'USER',
          entry_type: 'CREDIT',
          amount: '5000.1250',
          balance_before: '100.0000',
          balance_after: '5100.1250',
        },
        expect.objectContaining({ kind: 'TREASURY', entry_type: 'DEBIT', amount: '5000.1250' }),
      ]);
      const read = await t.api.get(`/api/v1/transactions/${response.body.referenceId}`, alice.token);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);
      const list = await t.api.get(`/api/v1/transactions/user/${alice.upiId}`, alice.token);
      expect(list.body.content[0]).toEqual(response.body);
    });

    it('is for admins only: 401 without a token, 403 for a user, nothing changes', async () => {
      const alice = await t.api.registerUser({ balance: 1 });
      const before = await countTransactions();
      const anonymous = await t.api.post(
        '/api/v1/admin/deposits',
        { upiId: alice.upiId, amount: 10 },
        { headers: { 'idempotency-key': newIdempotencyKey() } },
      );
      expect(anonymous.status).toBe(401);
      const user = await deposit({ upiId: alice.upiId, amount: 10 }, { token: alice.token });
      expect(user.status).toBe(403);
      expect(user.body.type).toMatch(/forbidden-operation$/);
      expect(await balanceOf(db, alice.upiId)).toBe('1.0000');
      expect(await countTransactions()).toBe(before);
    });

    it('is idempotent: the same key and body replay the stored answer, another body is 400', async () => {
      const alice = await t.api.registerUser({ balance: 0 });
      const key = newIdempotencyKey();
      const first = await deposit({ upiId: alice.upiId, amount: 70 }, { key });
      const again = await deposit({ amount: '70.0000', upiId: alice.upiId }, { key });
      expect([first.status, again.status]).toEqual([201, 201]);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const reused = await deposit({ upiId: alice.upiId, amount: 71 }, { key });
      expect(reused.status).toBe(400);
      expect(reused.body.type).toMatch(/idempotency-key-reused$/);
      expect(await balanceOf(db, alice.upiId)).toBe('70.0000');

      const missing = await t.api.post(
        '/api/v1/admin/deposits',
        { upiId: alice.upiId, amount: 1 },
        { token: admin.token },
      );
      expect(missing.status).toBe(400);
      expect(missing.body.type).toMatch(/idempotency-key-missing$/);
      expect(await balanceOf(db, alice.upiId)).toBe('70.0000');
    });

    it('answers 404 for an unknown user, stored and replayed, nothing changes', async () => {
      const before = [await countTransactions(), await treasuryBalance()];
      const key = newIdempotencyKey();
      const unknown = uniqueUpiId('ghost');
      const response = await deposit({ upiId: unknown, amount: 5 }, { key });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body).toEqual(
        expect.objectContaining({
          status: 404,
          type: expect.stringMatching(/user-not-found$/),
          requestId: expect.any(String),
        }),
      );
      const replay = await deposit({ upiId: unknown, amount: 5 }, { key });
      expect(replay.status).toBe(404);
      expect(replay.text).toBe(response.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect([await countTransactions(), await treasuryBalance()]).toEqual(before);
    });

    it.each([
      ['amount zero', { amount: 0 }, 'amount'],
      ['amount negative', { amount: -5 }, 'amount'],
      ['amount not a number', { amount: 'ten' }, 'amount'],
      ['amount missing', { amount: undefined }, 'amount'],
      ['amount above the maximum', { amount: '10000000000000.0001' }, 'amount'],
      ['upiId malformed', { upiId: 'not-a-upi' }, 'upiId'],
      ['note too long', { note: 'x'.repeat(256) }, 'note'],
    ])('answers 422 for %s, nothing changes', async (_case, override, field) => {
      const alice = await t.api.registerUser({ balance: 3 });
      const before = await countTransactions();
      const response = await deposit({ upiId: alice.upiId, amount: 10, ...override });
      expect(response.status).toBe(422);
      expect(Object.keys(response.body.errors)).toContain(field);
      expect(await balanceOf(db, alice.upiId)).toBe('3.0000');
      expect(await countTransactions()).toBe(before);
    });

    it('issues amounts no single treasury row could hold, by splitting them, within numeric(19,4)', async () => {
      // Earlier tests issued from every row, so none can take this alone.
      const whales = [
        await t.api.registerUser({ balance: '999999999999999.9999' }),
        await t.api.registerUser({ balance: '999999999999999.9999' }),
      ];
      for (const whale of whales) {
        const debits = await db.query(
          `SELECT u.kind, t.amount::text FROM ledger_entries t JOIN users u ON u.id = t.user_id
           WHERE t.entry_type = 'DEBIT' AND t.transaction_reference_id =
             (SELECT transaction_reference_id FROM ledger_entries WHERE user_id = (SELECT id FROM users WHERE upi_id = $1))`,
          [whale.upiId],
        );
        expect(debits.rows.length).toBeGreaterThan(1);
        expect(debits.rows.every((row) => row.kind === 'TREASURY')).toBe(true);
        const issued = debits.rows.reduce((sum, row) => sum + BigInt(row.amount.replace('.', '')), 0n);
        expect(issued).toBe(9999999999999999999n);
      }
      const deposit10 = await deposit({ upiId: (await t.api.registerUser({ balance: 0 })).upiId, amount: 10 });
      expect(deposit10.status).toBe(201);
      expect(await globalSum()).toBe('0.0000');
    });

    it('keeps every invariant under concurrent deposits, registrations and transfers', async () => {
      const users = await Promise.all(Array.from({ length: 6 }, () => t.api.registerUser({ balance: 20 })));
      const work = [
        ...users.map((user, i) => deposit({ upiId: user.upiId, amount: `${i + 1}.0001` })),
        ...users.map((user, i) => t.api.transfer(user, users[(i + 1) % users.length].upiId, 5)),
        ...Array.from({ length: 4 }, () => t.api.registerUser({ balance: 9 })),
      ];
      const results = await Promise.all(work);
      for (const result of results) expect([201, undefined]).toContain((result as { status?: number }).status);
      expect(await globalSum()).toBe('0.0000');
      expect(await findLedgerViolations(db)).toEqual([]);
      const audit = await t.api.get('/api/v1/admin/audit', admin.token);
      expect(audit.body).toEqual(expect.objectContaining({ ok: true, brokenEntries: [], globalSum: 0 }));
    });
  });
});
