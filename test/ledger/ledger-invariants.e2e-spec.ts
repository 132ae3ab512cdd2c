import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { connectTestDatabase } from '../support/db';
import { startTestApp } from '../support/test-app';

describe('the ledger invariant checker', () => {
  it('finds nothing wrong after real transfers, and reports a tampered balance', async () => {
    const t = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
    const db = await connectTestDatabase();
    try {
      const users = await Promise.all([100, 50, 5].map((balance) => t.api.registerUser({ balance })));
      const [a, b, c] = users;
      const statuses = await Promise.all([
        t.api.transfer(a, b.upiId, '10.5'),
        t.api.transfer(b, c.upiId, 20),
        t.api.transfer(c, a.upiId, 1),
        t.api.transfer(a, c.upiId, 500),
      ]);
      expect(statuses.map((s) => s.status).sort()).toEqual([201, 201, 201, 422]);
      const scope = { userReferenceIds: users.map((u) => u.referenceId) };
      expect(await findLedgerViolations(db, scope)).toEqual([]);

      // Money created out of thin air must be caught by the checker.
      await db.query('UPDATE users SET balance = balance + 1 WHERE reference_id = $1', [b.referenceId]);
      const violations = await findLedgerViolations(db, scope);
      expect(violations).toEqual([
        expect.stringContaining('balance equals credits minus debits'),
        expect.stringContaining('the sum of balances equals the sum of opening balances'),
      ]);
      await db.query('UPDATE users SET balance = balance - 1 WHERE reference_id = $1', [b.referenceId]);
    } finally {
      await db.end();
      await t.close();
    }
  });
});
