import { startWebhookBench } from '../../scripts/bench/webhook-receiver';
import { createScratchDatabase } from '../support/db';
import { startTestApp } from '../support/test-app';

/** scripts/bench/webhook-receiver.ts, as `npm run bench -- --webhook` uses it. */
describe('the benchmark webhook receiver', () => {
  it('subscribes to every event and counts each one once', async () => {
    const scratch = await createScratchDatabase();
    const bench = await startWebhookBench();
    const t = await startTestApp({ DATABASE_URL: scratch.url, ...bench.serviceEnv, RATE_LIMIT_PER_SECOND: '100' });
    try {
      await bench.subscribe(t.api.baseUrl);
      const [alice, bob] = await Promise.all([t.api.registerUser(), t.api.registerUser()]);
      for (let i = 0; i < 5; i++) expect((await t.api.transfer(alice, bob.upiId, 1)).status).toBe(201);
      const result = await bench.finish(5, 20_000);
      expect(result).toMatchObject({ expected: 5, received: 5, duplicates: 0 });
    } finally {
      await t.close();
      await scratch.drop();
    }
  });

  it('counts a redelivered event once, as a duplicate', async () => {
    const bench = await startWebhookBench();
    const deliver = (id: string) =>
      fetch(bench.url, { method: 'POST', headers: { 'webhook-id': id }, body: '{"amount":"1.0000"}' });
    expect((await deliver('evt-A')).status).toBe(204);
    expect((await deliver('evt-B')).status).toBe(204);
    expect((await deliver('evt-A')).status).toBe(204);
    expect(await bench.finish(2, 5000)).toMatchObject({ expected: 2, received: 2, duplicates: 1 });
  });
});
