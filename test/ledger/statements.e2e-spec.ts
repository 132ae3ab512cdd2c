import { parse } from 'csv-parse/sync';
import type { RegisteredUser } from '../support/api-client';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const CSV_HEADER = 'createdAt,transactionReferenceId,type,entryType,counterpartyUpiId,amount,balanceAfter,note';

/** Exact money arithmetic on the 4-decimal text the API writes: ten-thousandths as a BigInt. */
const units = (text: string) => BigInt(text.replace('.', ''));
const money = (value: number) => value.toFixed(4);

interface Entry {
  createdAt: string;
  transactionReferenceId: string;
  type: string;
  entryType: string;
  counterpartyUpiId: string | null;
  amount: number;
  balanceAfter: number;
  note: string | null;
}

describe('statements and balance history', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
  });
  afterAll(() => t.close());

  const statementPath = (user: RegisteredUser, query = '') => `/api/v1/users/${user.referenceId}/statement${query}`;
  const historyPath = (user: RegisteredUser, query = '') => `/api/v1/users/${user.referenceId}/balance-history${query}`;
  const csv = (user: RegisteredUser, query = '') =>
    t.api.request('GET', statementPath(user, query), { token: user.token, headers: { accept: 'text/csv' } });

  /** alice: 500 opening, pays bob 120.5 and carol 0.01, receives 20 from bob; notes that need quoting. */
  async function aliceWithHistory() {
    const [alice, bob, carol] = await Promise.all([
      t.api.registerUser({ balance: 500 }),
      t.api.registerUser({ balance: 100 }),
      t.api.registerUser({ balance: 0 }),
    ]);
    const notes = ['dinner, "the good place"', 'tea', '=HYPERLINK("http://x")'];
    const transfers = [
      await t.api.transfer(alice, bob.upiId, '120.5', { note: notes[0] }),
      await t.api.transfer(alice, carol.upiId, '0.01', { note: notes[1] }),
      await t.api.transfer(bob, alice.upiId, 20, { note: notes[2] }),
    ];
    expect(transfers.map((r) => r.status)).toEqual([201, 201, 201]);
    return { alice, bob, carol, transfers, notes };
  }

  it('lists every entry of the period with opening + entries = closing, the closing being the balance now', async () => {
    const { alice, bob, carol, transfers, notes } = await aliceWithHistory();
    const response = await t.api.get(statementPath(alice), alice.token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const statement = response.body;
    expect(Object.keys(statement)).toEqual(['from', 'to', 'openingBalance', 'closingBalance', 'entries']);
    const to = Date.parse(statement.to);
    expect(Math.abs(to - Date.now())).toBeLessThan(60_000);
    expect(to - Date.parse(statement.from)).toBe(30 * 86_400_000);
    expect(statement.openingBalance).toBe(0);
    expect(statement.entries).toEqual([
      {
        createdAt: expect.stringMatching(/Z$/),
        transactionReferenceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: 'DEPOSIT',
        entryType: 'CREDIT',
        counterpartyUpiId: null,
        amount: 500,
        balanceAfter: 500,
        note: null,
      },
      {
        createdAt: transfers[0].body.createdAt,
        transactionReferenceId: transfers[0].body.referenceId,
        type: 'TRANSFER',
        entryType: 'DEBIT',
        counterpartyUpiId: bob.upiId,
        amount: 120.5,
        balanceAfter: 379.5,
        note: notes[0],
      },
      expect.objectContaining({ counterpartyUpiId: carol.upiId, amount: 0.01, balanceAfter: 379.49 }),
      expect.objectContaining({ entryType: 'CREDIT', counterpartyUpiId: bob.upiId, amount: 20, note: notes[2] }),
    ]);
    // Exact 4-decimal numbers in the body, never rounded through a float.
    expect(response.text).toContain('"openingBalance":0.0000,"closingBalance":399.4900,"entries":[');
    expect(response.text).toContain('"amount":0.0100,"balanceAfter":379.4900');

    const sum = statement.entries.reduce(
      (total: bigint, e: Entry) => total + (e.entryType === 'CREDIT' ? 1n : -1n) * units(money(e.amount)),
      units(money(statement.openingBalance)),
    );
    expect(sum).toBe(units(money(statement.closingBalance)));
    const profile = await t.api.get(`/api/v1/users/${alice.referenceId}`, alice.token);
    expect(profile.body.balance).toBe(statement.closingBalance);
  });

  it('streams the same statement as RFC 4180 CSV that a CSV library parses back into the JSON form', async () => {
    const { alice, notes } = await aliceWithHistory();
    const json = await t.api.get(statementPath(alice), alice.token);
    const query = `?from=${encodeURIComponent(json.body.from)}&to=${encodeURIComponent(json.body.to)}`;
    const response = await csv(alice, query);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="statement-[\d-]+\.csv"$/);
    expect(response.headers.get('statement-opening-balance')).toBe('0.0000');
    expect(response.headers.get('statement-closing-balance')).toBe('399.4900');
    expect(response.text.split('\r\n')[0]).toBe(CSV_HEADER);
    expect(response.text.endsWith('\r\n')).toBe(true);

    const rows = parse(response.text, { columns: true, relax_column_count: false }) as Record<string, string>[];
    expect(rows).toHaveLength(json.body.entries.length);
    rows.forEach((row, i) => {
      const entry: Entry = json.body.entries[i];
      expect(row.amount).toMatch(/^\d+\.\d{4}$/);
      expect(row.balanceAfter).toMatch(/^\d+\.\d{4}$/);
      // A formula-like note is kept as text in the CSV with a leading apostrophe; all else is identical.
      const note = entry.note?.startsWith('=') ? `'${entry.note}` : (entry.note ?? '');
      expect(row).toEqual({
        createdAt: entry.createdAt,
        transactionReferenceId: entry.transactionReferenceId,
        type: entry.type,
        entryType: entry.entryType,
        counterpartyUpiId: entry.counterpartyUpiId ?? '',
        amount: money(entry.amount),
        balanceAfter: money(entry.balanceAfter),
        note,
      });
    });
    expect(rows.map((row) => row.note)).toEqual(['', notes[0], notes[1], `'${notes[2]}`]);
    const closing = rows.reduce(
      (total, row) => total + (row.entryType === 'CREDIT' ? 1n : -1n) * units(row.amount),
      units(response.headers.get('statement-opening-balance')!),
    );
    expect(closing).toBe(units(response.headers.get('statement-closing-balance')!));
    expect(units(rows[rows.length - 1].balanceAfter)).toBe(closing);
  });

  it('answers JSON when the Accept header prefers it, and CSV when it prefers text/csv', async () => {
    const me = await t.api.registerUser({ balance: 5 });
    const ask = (accept: string) => t.api.request('GET', statementPath(me), { token: me.token, headers: { accept } });
    expect((await ask('application/json, text/csv;q=0.5')).headers.get('content-type')).toMatch(/^application\/json/);
    expect((await ask('text/csv, application/json;q=0.9')).headers.get('content-type')).toMatch(/^text\/csv/);
    expect((await ask('*/*')).headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('cuts the period at from (inclusive) and to (exclusive), the opening balance being the balance at from', async () => {
    const { alice } = await aliceWithHistory();
    const all = (await t.api.get(statementPath(alice), alice.token)).body.entries as Entry[];
    const [, second, third, fourth] = all;
    const from = second.createdAt;
    const to = fourth.createdAt;
    const response = await t.api.get(
      statementPath(alice, `?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`),
      alice.token,
    );
    expect(response.status).toBe(200);
    expect(response.body.from).toBe(from);
    expect(response.body.to).toBe(to);
    const inRange = all.filter((e) => e.createdAt >= from && e.createdAt < to);
    expect(inRange).toEqual(expect.arrayContaining([second, third]));
    expect(response.body.entries).toEqual(inRange);
    expect(response.body.openingBalance).toBe(500);
    expect(response.body.closingBalance).toBe(inRange[inRange.length - 1].balanceAfter);

    const empty = await t.api.get(statementPath(alice, '?from=2020-01-01&to=2020-02-01'), alice.token);
    expect(empty.body).toEqual({
      from: '2020-01-01T00:00:00.000Z',
      to: '2020-02-01T00:00:00.000Z',
      openingBalance: 0,
      closingBalance: 0,
      entries: [],
    });
    const emptyCsv = await csv(alice, '?from=2020-01-01&to=2020-02-01');
    expect(emptyCsv.text).toBe(`${CSV_HEADER}\r\n`);
  });

  it('reports the balance at the end of each interval, matching the ledger', async () => {
    const { alice } = await aliceWithHistory();
    const ledger = (await t.api.get(`/api/v1/users/${alice.referenceId}/ledger?size=100`, alice.token)).body
      .content as { createdAt: string; balanceAfter: number }[];
    const balanceAt = (at: string) => ledger.find((e) => e.createdAt < at)?.balanceAfter ?? 0; // newest first

    const daily = await t.api.get(historyPath(alice, '?interval=day'), alice.token);
    expect(daily.status).toBe(200);
    expect(daily.body.length).toBeGreaterThanOrEqual(30);
    expect(daily.body.length).toBeLessThanOrEqual(31);
    for (const point of daily.body) expect(point.balance).toBe(balanceAt(point.at));
    expect(daily.body.slice(0, -1).every((p: { at: string }) => p.at.endsWith('T00:00:00.000Z'))).toBe(true);
    expect(daily.body[daily.body.length - 1].balance).toBe(399.49);
    expect(daily.text).toContain('"balance":399.4900');

    // The balance just before each entry and just after it, as the ledger says.
    for (const entry of ledger) {
      const after = new Date(Date.parse(entry.createdAt) + 1).toISOString();
      const from = new Date(Date.parse(entry.createdAt) - 3_600_000).toISOString();
      const hourly = await t.api.get(historyPath(alice, `?interval=hour&from=${from}&to=${after}`), alice.token);
      expect(hourly.status).toBe(200);
      expect(hourly.body.length).toBeGreaterThanOrEqual(1);
      expect(hourly.body.length).toBeLessThanOrEqual(2);
      expect(hourly.body[hourly.body.length - 1]).toEqual({ at: after, balance: balanceAt(after) });
    }
  });

  it('is the owner\u2019s alone: 403 for someone else, 404 for nobody, 401 without a token', async () => {
    const [me, other] = await Promise.all([t.api.registerUser(), t.api.registerUser()]);
    for (const path of [statementPath, historyPath]) {
      expectProblem(await t.api.get(path(other), me.token), 403, 'forbidden-operation');
      expectProblem(await t.api.get(path(other)), 401);
      const nobody = { ...me, referenceId: '6f1c1a4e-0000-4000-8000-000000000000' };
      expectProblem(await t.api.get(path(nobody), me.token), 404, 'user-not-found');
    }
    const forbiddenCsv = await csv({ ...other, token: me.token });
    expectProblem(forbiddenCsv, 403, 'forbidden-operation');
  });

  it.each([
    ['?from=2026-03-01&to=2026-02-01', 422, 'from'],
    ['?from=2024-01-01&to=2025-01-02', 422, 'to'],
    ['?from=yesterday', 400, undefined],
    ['?to=2026-02-30', 400, undefined],
    ['?from=2026-01-01T10:00:00', 400, undefined],
    ['?interval=week', 422, 'interval'],
  ])('answers %s with %i', async (query, status, field) => {
    const me = await t.api.registerUser();
    const paths = query.startsWith('?interval') ? [historyPath] : [statementPath, historyPath];
    for (const path of paths) {
      const response = await t.api.get(path(me, query), me.token);
      expectProblem(response, status);
      if (field) expect(Object.keys(response.body.errors)).toEqual([field]);
    }
  });

  it('accepts a period of exactly 366 days and a date-time with an offset', async () => {
    const me = await t.api.registerUser({ balance: 1 });
    const year = await t.api.get(statementPath(me, '?from=2024-01-01&to=2025-01-01'), me.token);
    expect(year.status).toBe(200);
    const offset = await t.api.get(
      statementPath(me, `?from=${encodeURIComponent('2026-01-01T05:30:00+05:30')}&to=2026-01-02`),
      me.token,
    );
    expect(offset.body.from).toBe('2026-01-01T00:00:00.000Z');
  });

  it('is documented in the OpenAPI document with examples that work as pasted', async () => {
    const document = (await t.api.get('/v3/api-docs')).body;
    const me = await t.api.registerUser({ balance: 42 });
    for (const path of ['/api/v1/users/{id}/statement', '/api/v1/users/{id}/balance-history']) {
      const operation = document.paths[path]?.get;
      expect(operation).toBeDefined();
      expect(operation.security).toEqual([{ bearer: [] }]);
      for (const status of [400, 401, 403, 404, 422])
        expect(Object.keys(operation.responses)).toContain(String(status));
      const query = (operation.parameters as { in: string; name: string; schema: { example?: string } }[])
        .filter((p) => p.in === 'query')
        .map((p) => `${p.name}=${encodeURIComponent(p.schema.example ?? '')}`)
        .join('&');
      expect(query).toMatch(/from=.+&to=[^&]+(&interval=day)?$/);
      const response = await t.api.get(`${path.replace('{id}', me.referenceId)}?${query}`, me.token);
      expect(response.status).toBe(200);
    }
    const statement = document.paths['/api/v1/users/{id}/statement'].get.responses['200'].content;
    expect(statement['application/json'].schema.$ref).toBe('#/components/schemas/StatementResponse');
    const example = parse(statement['text/csv'].example, { columns: true }) as Record<string, string>[];
    expect(Object.keys(example[0]).join(',')).toBe(CSV_HEADER);
    for (const path of ['/api/v1/users/{id}/ledger', '/api/v1/transactions/user/{upiId}']) {
      const operation = document.paths[path].get;
      expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'cursor' })]));
      expect(operation.responses['200'].content['application/json'].schema.properties.nextCursor).toEqual(
        expect.objectContaining({ type: 'string', nullable: true }),
      );
    }
  });
});
