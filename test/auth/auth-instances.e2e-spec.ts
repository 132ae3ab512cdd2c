import { setTimeout as sleep } from 'node:timers/promises';
import { REVOCATION_MAX_STALENESS_MS } from '../../src/auth/revocation.service';
import { startTestApp } from '../support/test-app';

/**
 * passport keeps its strategies in one registry per process. Each app must authenticate through
 * its own strategy (its own revocation cache and database): once another app in the same process
 * has closed, this one must keep answering, also after its revocation copy would have gone stale.
 */
describe('several service instances in one process', () => {
  it('an app keeps authenticating through its own strategy after another app closes', async () => {
    const first = await startTestApp();
    try {
      const user = await first.api.registerUser({ balance: 10 });
      const second = await startTestApp();
      await second.close();
      // Past the bound after which a revocation check goes to the database of the strategy's app.
      await sleep(REVOCATION_MAX_STALENESS_MS + 1500);
      const profile = await first.api.get(`/api/v1/users/${user.referenceId}`, user.token);
      expect(profile.status).toBe(200);
      expect(profile.body.upiId).toBe(user.upiId);
    } finally {
      await first.close();
    }
  }, 60_000);
});
