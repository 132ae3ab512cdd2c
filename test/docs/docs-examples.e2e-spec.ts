import { REPO_ROOT } from '../../scripts/lib/service-process';
import { type Call, documentedExamples, mismatches, runExample } from '../support/doc-examples';
import { createScratchDatabase } from '../support/db';
import { newIdempotencyKey } from '../support/api-client';
import { startTestApp, type TestApp } from '../support/test-app';

const examples = documentedExamples(REPO_ROOT);

/**
 * Every shell example of README.md and docs/ runs, in document order, against one fresh instance
 * (its own empty database), and answers what it documents. The convention is in
 * test/support/doc-examples.ts and in docs/testing.md ("Shell examples are tests").
 */
describe('the documented shell examples', () => {
  let t: TestApp;
  let drop: () => Promise<void>;
  const made = new Map<string, Call[]>();
  beforeAll(async () => {
    const scratch = await createScratchDatabase();
    drop = scratch.drop;
    t = await startTestApp({ DATABASE_URL: scratch.url });
  });
  afterAll(async () => {
    await t?.close();
    await drop?.();
  });

  it('are found, and each documents at least one call', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const example of examples)
      expect({ at: `${example.file}:${example.line}`, documented: example.expectations.length > 0 }).toEqual({
        at: `${example.file}:${example.line}`,
        documented: true,
      });
  });

  for (const example of examples) {
    it(`${example.file}:${example.line} answers as documented`, async () => {
      const { calls } = await runExample(example.code, t.api.baseUrl);
      made.set(`${example.file}:${example.line}`, calls);
      expect(mismatches(calls, example.expectations)).toEqual([]);
    }, 60_000);
  }

  it('would fail if any documented status were changed, or a call left undocumented', () => {
    expect(made.size).toBe(examples.length);
    for (const example of examples) {
      const calls = made.get(`${example.file}:${example.line}`)!;
      example.expectations.forEach((expectation, i) => {
        const changed = example.expectations.map((e, j) =>
          j === i ? { ...e, status: e.status === 200 ? 201 : 200 } : e,
        );
        expect(mismatches(calls, changed)).toEqual([expect.stringMatching(new RegExp(`^call ${i + 1}: status`))]);
      });
      expect(mismatches(calls, example.expectations.slice(1))[0]).toMatch(/curl calls made/);
    }
  });

  describe('the Swagger examples the README relies on', () => {
    let document: any;
    beforeAll(async () => {
      document = (await t.api.get('/v3/api-docs')).body;
    });

    it("registering with the register example lets the README's PIN-less login in", async () => {
      const example = document.paths['/api/v1/users'].post.requestBody.content['application/json'].example;
      expect(example).not.toHaveProperty('pin');
      const upiId = `swagger.${Date.now()}@okbank`;
      expect((await t.api.post('/api/v1/users', { ...example, upiId })).status).toBe(201);
      expect((await t.api.post('/api/v1/auth/login', { upiId })).status).toBe(200);
    });

    it('the 201 example of a plain transfer has exactly the fields of a real one', async () => {
      const example = document.paths['/api/v1/transactions'].post.responses['201'].content['application/json'].example;
      const [alice, bob] = [await t.api.registerUser({ balance: 10 }), await t.api.registerUser()];
      const real = await t.api.post(
        '/api/v1/transactions',
        { senderUpiId: alice.upiId, receiverUpiId: bob.upiId, amount: 1, note: 'x' },
        { token: alice.token, headers: { 'idempotency-key': newIdempotencyKey() } },
      );
      expect(real.status).toBe(201);
      expect(Object.keys(example).sort()).toEqual(Object.keys(real.body).sort());
      expect(example).toEqual(expect.objectContaining({ status: 'COMPLETED', type: 'TRANSFER' }));
    });
  });
});
