import { HttpDriver } from '../../scripts/bench/http-driver';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { holdsMixOperation } from '../../scripts/lib/holds-mix';
import { connectTestDatabase } from '../support/db';
import { startTestApp, type TestApp } from '../support/test-app';

/** The operation `npm run bench -- --holds` repeats, against the real service: a hold placed, then captured. */
describe('the bench holds mix', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
  });
  afterAll(() => t.close());

  it('places a hold and captures all of it, each answered 201, the money moved once and the ledger intact', async () => {
    const users = [await t.api.registerUser({ balance: 1000 }), await t.api.registerUser({ balance: 1000 })];
    const http = new HttpDriver(new URL(t.api.baseUrl), 4);
    const db = await connectTestDatabase();
    try {
      const operation = holdsMixOperation(http, users);
      const results = [await operation(), await operation()];
      expect(results).toEqual([
        { outcome: 'capture 201', ok: true, kind: 'place+capture' },
        { outcome: 'capture 201', ok: true, kind: 'place+capture' },
      ]);
      const holds = await db.query<{ status: string; captured: boolean }>(
        `SELECT status, captured_amount = amount AS captured FROM holds h JOIN users u ON u.id = h.payer_id
         WHERE u.reference_id = ANY($1::uuid[])`,
        [users.map((u) => u.referenceId)],
      );
      expect(holds.rows).toEqual([
        { status: 'CAPTURED', captured: true },
        { status: 'CAPTURED', captured: true },
      ]);
      const balances = await Promise.all(users.map((u) => t.api.get(`/api/v1/users/${u.referenceId}`, u.token)));
      expect(balances.reduce((sum, b) => sum + Number(b.body.balance), 0)).toBe(2000);
      expect(await findLedgerViolations(db, { userReferenceIds: users.map((u) => u.referenceId) })).toEqual([]);
    } finally {
      http.close();
      await db.end();
    }
  });
});
