import type { Client } from 'pg';
import { parse } from 'csv-parse/sync';
import { encodeCursor } from '../../src/common/paging/cursor';
import type { RegisteredUser } from '../support/api-client';
import { connectTestDatabase, withClient, withScratchDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

interface LedgerItem {
  ledgerId: number;
  createdAt: string;
  balanceAfter: number;
}

interface TransactionItem {
  transactionId: number;
  amount: number;
  createdAt: string;
}

/** Runs `count` jobs, `parallel` at a time. */
async function inParallel(count: number, parallel: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

describe('cursor paging', () => {
  let t: TestApp;
  let db: Client;
  let alice: RegisteredUser;
  let senders: RegisteredUser[];
  let incoming = 0;

  /** A transfer to alice from one of the senders, as happens while the pages are read. */
  const payAlice = async (amount: number | string) => {
    const sender = senders[incoming++ % senders.length];
    const response = await t.api.transfer(sender, alice.upiId, amount);
    expect(response.status).toBe(201);
    return response.body as { transactionId: number };
  };

  const ledgerPath = (query: string) => `/api/v1/users/${alice.referenceId}/ledger?${query}`;
  const listPath = (query: string) => `/api/v1/transactions/user/${alice.upiId}?${query}`;

  // alice: an opening balance and 999 received transfers, 1,000 ledger entries in all.
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '100000' });
    db = await connectTestDatabase();
    alice = await t.api.registerUser({ balance: 1 });
    senders = await Promise.all(Array.from({ length: 6 }, () => t.api.registerUser({ balance: 100000 })));
    await inParallel(999, 8, async (i) => void (await payAlice((i % 7) + 1)));
  }, 300_000);
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  async function ledgerIdsNow(): Promise<string[]> {
    const result = await db.query(
      `SELECT e.id::text FROM ledger_entries e JOIN users u ON u.id = e.user_id WHERE u.reference_id = $1`,
      [alice.referenceId],
    );
    return result.rows.map((row: { id: string }) => row.id);
  }

  it('walks 1,000 ledger entries with no gaps or duplicates while new transfers arrive', async () => {
    const expected = await ledgerIdsNow();
    expect(expected).toHaveLength(1000);

    const first = await t.api.get(ledgerPath('size=37'), alice.token);
    expect(first.body).toEqual(expect.objectContaining({ page: 0, totalElements: 1000, last: false }));
    const seen: LedgerItem[] = [...first.body.content];
    let cursor: string | null = first.body.nextCursor;
    let pages = 1;
    while (cursor !== null) {
      const [page] = await Promise.all([
        t.api.get(ledgerPath(`size=37&cursor=${cursor}`), alice.token),
        payAlice(1),
        payAlice(2),
      ]);
      expect(page.status).toBe(200);
      expect(Object.keys(page.body).sort()).toEqual(['content', 'first', 'last', 'nextCursor', 'size']);
      expect(page.body.last).toBe(page.body.nextCursor === null);
      seen.push(...page.body.content);
      cursor = page.body.nextCursor;
      pages += 1;
    }
    expect(pages).toBe(Math.ceil(1000 / 37));
    const ids = seen.map((entry) => String(entry.ledgerId));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...expected].sort());
    // Newest first throughout, ties on the timestamp broken by id.
    for (let i = 1; i < seen.length; i += 1) {
      const [a, b] = [seen[i - 1], seen[i]];
      expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.ledgerId > b.ledgerId)).toBe(true);
    }
    expect(seen[seen.length - 1].balanceAfter).toBe(1);
  }, 300_000);

  it.each(['createdAt', 'amount'])(
    'walks the transaction list by %s with no gaps or duplicates while new transfers arrive',
    async (sortBy) => {
      const before = await t.api.get(listPath(`size=100&sortBy=${sortBy}`), alice.token);
      const total: number = before.body.totalElements;
      expect(total).toBeGreaterThanOrEqual(999);
      const all = await db.query(
        `SELECT t.id::text FROM transactions t JOIN users u ON u.id IN (t.sender_id, t.receiver_id)
         WHERE u.reference_id = $1`,
        [alice.referenceId],
      );
      const expected = all.rows.map((row: { id: string }) => row.id);
      expect(expected).toHaveLength(total);

      const seen: TransactionItem[] = [...before.body.content];
      const added = new Set<string>();
      let cursor: string | null = before.body.nextCursor;
      while (cursor !== null) {
        const [page, one, two] = await Promise.all([
          t.api.get(listPath(`size=100&sortBy=${sortBy}&cursor=${cursor}`), alice.token),
          payAlice(1),
          payAlice(7),
        ]);
        expect(page.status).toBe(200);
        added.add(String(one.transactionId)).add(String(two.transactionId));
        seen.push(...page.body.content);
        cursor = page.body.nextCursor;
      }
      const ids = seen.map((item) => String(item.transactionId));
      expect(new Set(ids).size).toBe(ids.length);
      // Every transaction there at the start exactly once; a newcomer only where the order puts it after the cursor.
      expect(ids.filter((id) => !added.has(id)).sort()).toEqual([...expected].sort());
      const key = (item: TransactionItem) => (sortBy === 'amount' ? item.amount : item.createdAt);
      for (let i = 1; i < seen.length; i += 1) {
        const [a, b] = [seen[i - 1], seen[i]];
        expect(key(a) > key(b) || (key(a) === key(b) && a.transactionId > b.transactionId)).toBe(true);
      }
    },
    300_000,
  );

  it('streams a statement of 1,000+ entries in batches, the CSV matching the JSON form', async () => {
    const json = await t.api.get(`/api/v1/users/${alice.referenceId}/statement`, alice.token);
    const range = `?from=${encodeURIComponent(json.body.from)}&to=${encodeURIComponent(json.body.to)}`;
    const csv = await t.api.request('GET', `/api/v1/users/${alice.referenceId}/statement${range}`, {
      token: alice.token,
      headers: { accept: 'text/csv' },
    });
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(json.body.entries.length).toBeGreaterThanOrEqual(1000);
    expect(rows.map((row) => Number(row.balanceAfter))).toEqual(
      json.body.entries.map((entry: { balanceAfter: number }) => entry.balanceAfter),
    );
    expect(rows.map((row) => row.transactionReferenceId)).toEqual(
      json.body.entries.map((entry: { transactionReferenceId: string }) => entry.transactionReferenceId),
    );
    const units = (text: string) => BigInt(text.replace('.', ''));
    const closing = rows.reduce(
      (sum, row) => sum + (row.entryType === 'CREDIT' ? 1n : -1n) * units(row.amount),
      units(csv.headers.get('statement-opening-balance')!),
    );
    expect(closing).toBe(units(csv.headers.get('statement-closing-balance')!));
    expect(json.text).toContain(`"closingBalance":${csv.headers.get('statement-closing-balance')}`);
  });

  it('answers 400 for a cursor with page, a forged cursor, another list\u2019s cursor or another order', async () => {
    const first = await t.api.get(ledgerPath('size=5'), alice.token);
    const cursor = first.body.nextCursor as string;
    expectProblem(await t.api.get(ledgerPath(`page=0&cursor=${cursor}`), alice.token), 400, 'invalid-request');
    expectProblem(await t.api.get(ledgerPath('cursor=not-a-cursor!'), alice.token), 400, 'invalid-request');
    const forged = Buffer.from('{"v":1,"s":"createdAt","k":"99999999999999999999"}').toString('base64url');
    expectProblem(await t.api.get(ledgerPath(`cursor=${forged}`), alice.token), 400, 'invalid-request');

    const other = await t.api.registerUser({ balance: 3 });
    const theirs = encodeCursor({ sortBy: 'createdAt', id: String(first.body.content[0].ledgerId) });
    expectProblem(
      await t.api.get(`/api/v1/users/${other.referenceId}/ledger?cursor=${theirs}`, other.token),
      400,
      'invalid-request',
    );

    const byDate = await t.api.get(listPath('size=5'), alice.token);
    const dateCursor = byDate.body.nextCursor as string;
    expectProblem(await t.api.get(listPath(`sortBy=amount&cursor=${dateCursor}`), alice.token), 400, 'invalid-request');
    expectProblem(await t.api.get(listPath(`sortBy=name&cursor=${dateCursor}`), alice.token), 422, 'validation-failed');
    expectProblem(await t.api.get(listPath(`size=0&cursor=${dateCursor}`), alice.token), 422, 'validation-failed');
    expectProblem(
      await t.api.get(`/api/v1/transactions/user/${other.upiId}?cursor=${dateCursor}`, other.token),
      400,
      'invalid-request',
    );
  });

  it('gives nextCursor null on the last page, and on a list that fits one page', async () => {
    const fresh = await t.api.registerUser({ balance: 2 });
    const only = await t.api.get(`/api/v1/users/${fresh.referenceId}/ledger`, fresh.token);
    expect(only.body).toEqual(expect.objectContaining({ totalElements: 1, last: true, nextCursor: null }));
    const none = await t.api.get(`/api/v1/transactions/user/${fresh.upiId}`, fresh.token);
    expect(none.body).toEqual(expect.objectContaining({ content: [], nextCursor: null }));
  });
});

describe('cursor paging at depth', () => {
  const DEPTH = 100_000;
  const SIZE = 10;

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

  it(`reads a page ${DEPTH.toLocaleString('en')} entries deep about as fast as the first one`, async () => {
    await withScratchDatabase(async (url) => {
      // One account with DEPTH + SIZE entries, written straight into a throwaway database.
      const { userId, referenceId } = await withClient(url, async (c) => {
        const user = await c.query(
          `INSERT INTO users (reference_id, name, upi_id, phone_number, balance)
           VALUES (gen_random_uuid(), 'Deep', 'deep@okbank', '9000000000', $1) RETURNING id::text, reference_id::text`,
          [DEPTH + SIZE],
        );
        const { id, reference_id } = user.rows[0] as { id: string; reference_id: string };
        // History in a past month needs its partition made first, as the large seed does.
        await c.query(`SELECT ensure_partitions('ledger_entries', '2026-01-01', '2026-01-03')`);
        // A stand-in hash: paging is measured here, not the chain, and chaining 100,000 rows one
        // by one (the trigger for rows written outside the movements) would dominate the test.
        await c.query(
          `INSERT INTO ledger_entries (user_id, transaction_reference_id, entry_type, amount, balance_before, balance_after, created_at, hash)
           SELECT $1, gen_random_uuid(), 'CREDIT', 1, g - 1, g, timestamptz '2026-01-01' + g * interval '1 second',
                  decode(repeat('0', 64), 'hex')
           FROM generate_series(1, $2::int) g`,
          [id, DEPTH + SIZE],
        );
        await c.query('ANALYZE ledger_entries');
        return { userId: id, referenceId: reference_id };
      });
      const anchorAt = (offset: number) =>
        withClient(url, async (c) => {
          const row = await c.query(
            `SELECT id::text FROM ledger_entries WHERE user_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
            [userId, offset],
          );
          return encodeCursor({ sortBy: 'createdAt', id: row.rows[0].id });
        });
      const [shallowCursor, deepCursor] = [await anchorAt(0), await anchorAt(DEPTH - 1)];

      const app = await startTestApp({ DATABASE_URL: url });
      try {
        const token = await app.api.login('deep@okbank');
        const path = (query: string) => `/api/v1/users/${referenceId}/ledger?size=${SIZE}&${query}`;
        const time = async (query: string) => {
          const samples: number[] = [];
          let body: { content: { balanceAfter: number }[] } | undefined;
          for (let i = 0; i < 7; i += 1) {
            const started = performance.now();
            const response = await app.api.get(path(query), token);
            samples.push(performance.now() - started);
            expect({ status: response.status, text: response.status === 200 ? '' : response.text }).toEqual({
              status: 200,
              text: '',
            });
            body = response.body;
          }
          return { ms: median(samples), body: body! };
        };
        const shallow = await time(`cursor=${shallowCursor}`);
        const deep = await time(`cursor=${deepCursor}`);
        const offset = await time(`page=${DEPTH / SIZE}`);
        // The page right after depth 0 and the one right after depth DEPTH: the right entries.
        expect(shallow.body.content.map((e) => e.balanceAfter)[0]).toBe(DEPTH + SIZE - 1);
        expect(deep.body.content.map((e) => e.balanceAfter)).toEqual(Array.from({ length: SIZE }, (_, i) => SIZE - i));
        expect(offset.body.content.map((e) => e.balanceAfter)).toEqual(
          Array.from({ length: SIZE }, (_, i) => SIZE - i),
        );
        // Same order of magnitude, with room for a loaded machine.
        expect(deep.ms).toBeLessThan(shallow.ms * 10 + 50);
      } finally {
        await app.close();
      }
    });
  }, 300_000);
});
