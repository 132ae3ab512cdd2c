import type { Client } from 'pg';
import { encodeCursor } from '../../src/common/paging/cursor';
import { createScratchDatabase, withClient } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The ledger's cursor pages across monthly partitions (ledger_entries has no primary key: a page
 * is read by keyset on (created_at, id) through ix_ledger_entries_user_created, from the instant
 * the cursor carries). Entries sit on both sides of month boundaries, several share an instant,
 * some at instants a JavaScript Date cannot hold (microseconds), and ids do not follow time.
 */
describe('ledger cursor pages across months', () => {
  // In the order they are inserted, so ids follow this order, not time.
  const TIMES = [
    '2025-11-03T10:00:00Z',
    '2025-11-30T23:59:59.999999Z',
    '2025-11-30T23:59:59.999999Z',
    '2026-01-20T08:00:00Z',
    '2025-12-01T00:00:00Z',
    '2025-11-30T23:59:59.999999Z',
    '2025-12-01T00:00:00Z',
    '2025-12-15T12:00:00.000001Z',
    '2025-12-31T23:59:59.9995Z',
    '2026-01-01T00:00:00.000001Z',
    '2025-12-31T23:59:59.9995Z',
  ];

  let url: string;
  let drop: () => Promise<void>;
  let app: TestApp;
  let token: string;
  let referenceId: string;
  /** The entry ids newest first, as the database orders them. */
  let expected: string[];

  const ledger = (query: string) => app.api.get(`/api/v1/users/${referenceId}/ledger?${query}`, token);

  beforeAll(async () => {
    // A database of its own: its past months' partitions concern no other test.
    ({ url, drop } = await createScratchDatabase());
    ({ referenceId, expected } = await withClient(url, async (c: Client) => {
      const user = await c.query<{ id: string; reference_id: string }>(
        `INSERT INTO users (reference_id, name, upi_id, phone_number, balance)
         VALUES (gen_random_uuid(), 'Months', 'months@okbank', '9000000001', $1) RETURNING id::text, reference_id::text`,
        [TIMES.length],
      );
      const { id } = user.rows[0];
      await c.query(`SELECT ensure_partitions('ledger_entries', '2025-11-01', '2026-02-01')`);
      // One at a time, so ids follow TIMES; the chain trigger hashes each (no hash given).
      for (const [i, at] of TIMES.entries()) {
        await c.query(
          `INSERT INTO ledger_entries (user_id, transaction_reference_id, entry_type, amount, balance_before, balance_after, created_at)
           VALUES ($1, gen_random_uuid(), 'CREDIT', 1, $2::numeric, $2::numeric + 1, $3)`,
          [id, i, at],
        );
      }
      const months = await c.query(
        `SELECT DISTINCT tableoid::regclass::text AS partition FROM ledger_entries WHERE user_id = $1 ORDER BY 1`,
        [id],
      );
      expect(months.rows.map((row) => row.partition)).toEqual([
        'ledger_entries_p202511',
        'ledger_entries_p202512',
        'ledger_entries_p202601',
      ]);
      const order = await c.query<{ id: string }>(
        `SELECT e.id::text AS id FROM ledger_entries e WHERE e.user_id = $1 ORDER BY e.created_at DESC, e.id DESC`,
        [id],
      );
      return { referenceId: user.rows[0].reference_id, expected: order.rows.map((row) => row.id) };
    }));
    app = await startTestApp({ DATABASE_URL: url });
    token = await app.api.login('months@okbank');
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  it.each([1, 2, 3, 4])(
    'walks every entry once, newest first, in pages of %i from the first page on',
    async (size) => {
      const first = await ledger(`size=${size}`);
      expect(first.status).toBe(200);
      const seen: string[] = first.body.content.map((entry: { ledgerId: number }) => String(entry.ledgerId));
      let cursor: string | null = first.body.nextCursor;
      while (cursor !== null) {
        const page = await ledger(`size=${size}&cursor=${cursor}`);
        expect({ status: page.status, text: page.status === 200 ? '' : page.text }).toEqual({ status: 200, text: '' });
        // A cursor issued before cursors carried created_at (its entry by id alone) reads the same page.
        const byId = encodeCursor({ sortBy: 'createdAt', id: seen[seen.length - 1] });
        const same = await ledger(`size=${size}&cursor=${byId}`);
        expect(same.body).toEqual(page.body);
        seen.push(...page.body.content.map((entry: { ledgerId: number }) => String(entry.ledgerId)));
        cursor = page.body.nextCursor;
        expect(seen.length).toBeLessThanOrEqual(expected.length);
      }
      expect(seen).toEqual(expected);
    },
    60_000,
  );

  it('answers 400 for a cursor whose instant is not its entry’s, and for another ledger’s cursor', async () => {
    const first = await ledger('size=2');
    const cursor = first.body.nextCursor as string;
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t: string };
    // The entry at 2026-01-01T00:00:00.000001Z, named a microsecond later: no entry of this ledger.
    const shifted = { ...position, t: String(BigInt(position.t) + 1n) };
    const moved = Buffer.from(JSON.stringify(shifted)).toString('base64url');
    expectProblem(await ledger(`cursor=${moved}`), 400, 'invalid-request');

    const other = await app.api.registerUser({ balance: 3 });
    expectProblem(
      await app.api.get(`/api/v1/users/${other.referenceId}/ledger?cursor=${cursor}`, other.token),
      400,
      'invalid-request',
    );
  });
});
