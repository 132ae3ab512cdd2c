import { Client } from 'pg';
import { auditLedger } from '../../src/audit/ledger-audit';
import { loadConfig } from '../../src/config/app-config';
import { randomPhone, uniqueUpiId } from '../support/api-client';
import { createScratchDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const LARGEST = '999999999999999.9999';

/** Issue 18, item 1: the treasury never runs out, and production issues no money at registration. */
describe('treasury capacity and opening balances', () => {
  let t: TestApp;
  let db: Client;
  let drop: () => Promise<void>;
  let url: string;

  beforeAll(async () => {
    const scratch = await createScratchDatabase();
    drop = scratch.drop;
    url = scratch.url;
    t = await startTestApp({ DATABASE_URL: url });
    db = new Client({ connectionString: scratch.url });
    await db.connect();
  });

  afterAll(async () => {
    await db.end();
    await t.close();
    await drop();
  });

  const register = (balance: string) =>
    t.api.post('/api/v1/users', { name: 'Rich', upiId: uniqueUpiId('rich'), phoneNumber: randomPhone(), balance });

  it('registers past the old limit of eight treasury rows (8 x 10^15) with no 500, and the audit stays clean', async () => {
    // The eight original rows held about 8 x 10^15 in all: 81 maximal openings used to be a 500 at the 81st.
    const statuses: number[] = [];
    for (let i = 0; i < 82; i++) statuses.push((await register(LARGEST)).status);
    expect(statuses).toEqual(Array(82).fill(201));

    const { rows } = await db.query(
      `SELECT count(*)::int AS rows, sum(balance)::text AS issued FROM users WHERE kind = 'TREASURY'`,
    );
    expect(rows[0].rows).toBeGreaterThan(8);
    expect(rows[0].issued).toBe(`-${(82n * 9999999999999999999n).toString().replace(/(\d{4})$/, '.$1')}`);
    const report = await auditLedger(db);
    expect({ ok: report.ok, globalSum: report.globalSum, counts: report.counts }).toEqual({
      ok: true,
      globalSum: '0.0000',
      counts: { brokenEntries: 0, brokenAccounts: 0, unbalancedTransactions: 0, brokenTransactions: 0, orphans: 0 },
    });
  });

  it('opens new treasury rows for concurrent registrations without a deadlock or a lost cent', async () => {
    // Every row is full by now, so each of these needs a row of its own, opened concurrently.
    const answers = await Promise.all(Array.from({ length: 16 }, () => register(LARGEST)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(201));
    const { rows } = await db.query(
      `SELECT count(*)::int AS n, count(DISTINCT upi_id)::int AS names FROM users WHERE kind = 'TREASURY'`,
    );
    // Each maximal opening fills exactly one row: 98 openings, 98 rows (eight original, 90 opened).
    expect(rows[0]).toEqual({ n: 98, names: 98 });
    const report = await auditLedger(db);
    expect({ ok: report.ok, globalSum: report.globalSum }).toEqual({ ok: true, globalSum: '0.0000' });
  });

  it('production defaults OPENING_BALANCE_MAX to 0 and AUTH_PIN_REQUIRED to true; the spec defaults stay elsewhere', () => {
    const production = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) });
    expect({ max: production.openingBalanceMax, pin: production.authPinRequired }).toEqual({ max: '0', pin: true });
    const development = loadConfig({ JWT_SECRET: 'x'.repeat(32) });
    expect({ max: development.openingBalanceMax, pin: development.authPinRequired }).toEqual({
      max: '1000000000000000',
      pin: false,
    });
  });

  it('under the production defaults refuses an opening balance (422 on balance) and writes nothing', async () => {
    const production = await startTestApp({ NODE_ENV: 'production', DATABASE_URL: url });
    try {
      const upiId = uniqueUpiId('prod');
      const body = { name: 'Prod', upiId, phoneNumber: randomPhone(), balance: '1', pin: '4821' };
      const response = await production.api.post('/api/v1/users', body);
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual({ balance: 'balance must not exceed 0' });
      const { rows } = await db.query('SELECT 1 FROM users WHERE upi_id = $1', [upiId]);
      expect(rows).toEqual([]);
      expect((await production.api.post('/api/v1/users', { ...body, balance: 0 })).status).toBe(201);
    } finally {
      await production.close();
    }
  });
});
