import { newIdempotencyKey } from '../support/api-client';
import { startTestApp, type TestApp } from '../support/test-app';

/** payments_transfers_total by outcome and replayed, read from /actuator/prometheus. */
async function transferCounts(t: TestApp): Promise<Record<string, number>> {
  const { text } = await t.api.get('/actuator/prometheus');
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^payments_transfers_total\{outcome="(\d+)",replayed="(\w+)"\} (\d+)$/gm)) {
    counts[`${match[1]}/${match[2]}`] = Number(match[3]);
  }
  return counts;
}

function countOf(histogramText: string, outcome: string): number {
  const match = new RegExp(`^payments_transfer_duration_seconds_count\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(
    histogramText,
  );
  return match ? Number(match[1]) : 0;
}

describe('movement metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('count and time every answer past identity, sender and rate limit, by status and replay', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 10 }), t.api.registerUser()]);
    const before = await transferCounts(t);
    const histogramBefore = (await t.api.get('/actuator/prometheus')).text;
    const key = newIdempotencyKey();
    expect((await t.api.transfer(alice, bob.upiId, 1, { key })).status).toBe(201);
    expect((await t.api.transfer(alice, bob.upiId, 1, { key })).status).toBe(201);
    expect((await t.api.transfer(alice, bob.upiId, 1000)).status).toBe(422);
    expect((await t.api.transfer(alice, bob.upiId, 'x')).status).toBe(422);
    const noKey = await t.api.post(
      '/api/v1/transactions',
      { senderUpiId: alice.upiId, receiverUpiId: bob.upiId, amount: 1 },
      { token: alice.token },
    );
    expect(noKey.status).toBe(400);
    // Refused by a guard before the key is read: not a movement answer.
    expect((await t.api.transfer(alice, bob.upiId, 1, { senderUpiId: bob.upiId })).status).toBe(403);

    const after = await transferCounts(t);
    const delta = (label: string) => (after[label] ?? 0) - (before[label] ?? 0);
    expect(['201/false', '201/true', '422/false', '400/false', '403/false'].map(delta)).toEqual([1, 1, 2, 1, 0]);
    const histogramAfter = (await t.api.get('/actuator/prometheus')).text;
    expect(countOf(histogramAfter, '201') - countOf(histogramBefore, '201')).toBe(2);
    expect(countOf(histogramAfter, '400') - countOf(histogramBefore, '400')).toBe(1);
  });
});
