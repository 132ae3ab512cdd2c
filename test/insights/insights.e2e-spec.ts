import { Client } from 'pg';
import { TransferEventsController } from '../../src/insights/transfer-events.controller';
import { createScratchDatabase } from '../support/db';
import { FakeAiModel } from '../support/fake-ai-model';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const AI_TIMEOUT_MS = 400;

describe('POST /api/v1/transactions/{id}/insights', () => {
  let model: FakeAiModel;
  let db: Client;
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  const apps: TestApp[] = [];

  // A database of its own: in light mode any instance's relay may take an unpublished event, and an
  // app of another test file (no model configured) would then be the one to see these transfers.
  beforeAll(async () => {
    model = await new FakeAiModel().start();
    scratch = await createScratchDatabase();
    db = new Client({ connectionString: scratch.url });
    await db.connect();
  });
  beforeEach(() => {
    model.mode = 'answer';
    model.category = 'SHOPPING';
    model.slowMs = 5000;
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await db.end();
    await scratch.drop();
    await model.stop();
  });

  async function appWith(env: Record<string, string> = {}): Promise<TestApp> {
    const app = await startTestApp({
      DATABASE_URL: scratch.url,
      AI_BASE_URL: `${model.url}/v1`,
      AI_API_KEY: 'sk-test-key',
      AI_MODEL: 'test-model',
      AI_TIMEOUT_MS: String(AI_TIMEOUT_MS),
      AI_CIRCUIT_THRESHOLD: '2',
      AI_CIRCUIT_HALF_OPEN_MS: '60000',
      ...env,
    });
    apps.push(app);
    return app;
  }

  /**
   * A transfer with a note the rule-based classifier reads as food. With a model configured, the
   * completed transfer is classified off the request path: wait for that call, so that each test
   * knows what the model has seen before it asks the endpoint.
   */
  async function transferIn(t: TestApp, note = 'Swiggy dinner', { classified = true } = {}) {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 1000 }), t.api.registerUser({ balance: 0 })]);
    const created = await t.api.transfer(alice, bob.upiId, '450', { note });
    expect(created.status).toBe(201);
    const referenceId = created.body.referenceId as string;
    if (classified) await waitUntil(() => callsAbout(bob.upiId) > 0, 'the classification call');
    return { alice, bob, referenceId };
  }

  /** The model calls about transfers to this receiver (its UPI ID is in the prompt). */
  const callsAbout = (receiverUpiId: string) =>
    model.calls.filter((call) => JSON.stringify(call.body).includes(receiverUpiId)).length;

  /** The source of the stored insight of a transaction, or undefined while none is stored. */
  async function storedSource(referenceId: string): Promise<string | undefined> {
    const result = await db.query(
      `SELECT i.source FROM transaction_insights i JOIN transactions t ON t.id = i.transaction_id
       WHERE t.reference_id = $1`,
      [referenceId],
    );
    return result.rows[0]?.source;
  }

  const ask = (t: TestApp, referenceId: string, token: string) =>
    t.api.request('POST', `/api/v1/transactions/${referenceId}/insights`, { token });

  it("answers with the model's assessment, asked once off the request path with an OpenAI-compatible request", async () => {
    const t = await appWith();
    const calls = model.calls.length;
    const { alice, referenceId } = await transferIn(t);
    await waitUntil(async () => (await storedSource(referenceId)) === 'AI_MODEL', 'the stored classification');
    expect(model.calls.length).toBe(calls + 1);
    const response = await ask(t, referenceId, alice.token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      transactionReferenceId: referenceId,
      category: 'SHOPPING',
      amount: 450,
      summary: 'A purchase from an online store.',
      budgetingTip: 'Wait a day before buying.',
      confidenceScore: 0.87,
      source: 'AI_MODEL',
    });
    expect(response.text).toContain('"amount":450.0000');
    expect(model.calls.length).toBe(calls + 1);
    const call = model.calls.at(-1)!;
    expect(call.url).toBe('/v1/chat/completions');
    expect(call.headers.authorization).toBe('Bearer sk-test-key');
    expect(call.body).toEqual(
      expect.objectContaining({
        model: 'test-model',
        response_format: { type: 'json_object' },
        messages: expect.any(Array),
      }),
    );
    expect(JSON.stringify(call.body.messages)).toContain('Swiggy dinner');
  });

  it('stores the answer: asking again, even as the receiver, does not call the model', async () => {
    const t = await appWith();
    const { alice, bob, referenceId } = await transferIn(t);
    const first = await ask(t, referenceId, alice.token);
    const calls = model.calls.length;
    model.category = 'UTILITIES';
    const again = await ask(t, referenceId, bob.token);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(model.calls.length).toBe(calls);
  });

  it.each([
    ['rate-limited (429)', 'rate-limited'],
    ['failing (500)', 'error'],
    ['too slow', 'slow'],
    ['answering prose instead of JSON', 'garbage'],
    ['answering a category outside the enum', 'unknown-category'],
    ['answering a confidence above 1', 'overconfident'],
  ] as const)('falls back to the rule-based classifier when the model is %s', async (_case, mode) => {
    const t = await appWith();
    model.mode = mode;
    const { alice, referenceId } = await transferIn(t);
    const calls = model.calls.length;
    const started = Date.now();
    const response = await ask(t, referenceId, alice.token);
    // The fallback never waits for the model's answer: it arrives while a slow model is still thinking.
    expect(Date.now() - started).toBeLessThan(model.slowMs);
    if (mode === 'slow') {
      expect(model.calls.length).toBeGreaterThan(calls);
      expect(model.calls.slice(calls).some((call) => call.answered)).toBe(false);
    }
    expect(await storedSource(referenceId)).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      transactionReferenceId: referenceId,
      category: 'FOOD_AND_DINING',
      amount: 450,
      summary: expect.stringContaining('₹450.00'),
      budgetingTip: expect.any(String),
      confidenceScore: expect.any(Number),
      source: 'RULE_BASED_FALLBACK',
    });
  });

  it('classifies a redelivered event only once: the stored answer stands', async () => {
    const t = await appWith();
    const { alice, bob, referenceId } = await transferIn(t);
    await waitUntil(async () => (await storedSource(referenceId)) === 'AI_MODEL', 'the stored classification');
    const first = await ask(t, referenceId, alice.token);
    const event = (
      await db.query('SELECT o.payload FROM outbox_messages() o WHERE o.payload::jsonb ->> $1 = $2', [
        'transactionReferenceId',
        referenceId,
      ])
    ).rows[0].payload;
    model.category = 'UTILITIES';
    await t.app.get(TransferEventsController).onTransferEvent(JSON.parse(event));
    expect(callsAbout(bob.upiId)).toBe(1);
    expect((await ask(t, referenceId, alice.token)).body).toEqual(first.body);
  });

  it('does not store a fallback answer: the model answers once it is back', async () => {
    const t = await appWith({ AI_CIRCUIT_THRESHOLD: '5' });
    model.mode = 'error';
    const { alice, referenceId } = await transferIn(t);
    expect((await ask(t, referenceId, alice.token)).body.source).toBe('RULE_BASED_FALLBACK');
    model.mode = 'answer';
    expect((await ask(t, referenceId, alice.token)).body).toEqual(
      expect.objectContaining({ source: 'AI_MODEL', category: 'SHOPPING' }),
    );
  });

  it('opens aiCircuitBreaker after repeated failures: no call reaches the model while it is open', async () => {
    const t = await appWith();
    model.mode = 'error';
    const { alice, referenceId } = await transferIn(t);
    for (let i = 0; i < 2; i++)
      expect((await ask(t, referenceId, alice.token)).body.source).toBe('RULE_BASED_FALLBACK');
    const calls = model.calls.length;
    model.mode = 'answer';
    const whileOpen = await ask(t, referenceId, alice.token);
    expect(whileOpen.body.source).toBe('RULE_BASED_FALLBACK');
    expect(model.calls.length).toBe(calls);
  });

  it('answers from the rules without any call when no model is configured', async () => {
    const t = await appWith({ AI_BASE_URL: '' });
    const { alice, referenceId } = await transferIn(t, 'Netflix', { classified: false });
    const calls = model.calls.length;
    const response = await ask(t, referenceId, alice.token);
    expect(response.body).toEqual(
      expect.objectContaining({ category: 'ENTERTAINMENT', source: 'RULE_BASED_FALLBACK' }),
    );
    expect(model.calls.length).toBe(calls);
  });

  it('answers 503 feature-disabled when INSIGHTS_ENABLED=false', async () => {
    const t = await appWith({ INSIGHTS_ENABLED: 'false' });
    const { alice, referenceId } = await transferIn(t, 'Swiggy dinner', { classified: false });
    expectProblem(await ask(t, referenceId, alice.token), 503, 'feature-disabled');
  });

  it('answers 403 to someone who is neither sender nor receiver', async () => {
    const t = await appWith();
    const { referenceId } = await transferIn(t);
    const eve = await t.api.registerUser();
    expectProblem(await ask(t, referenceId, eve.token), 403, 'forbidden-operation');
  });

  it('answers 404 for an unknown transaction, 400 for a bad id and 401 without a token', async () => {
    const t = await appWith();
    const { alice, referenceId } = await transferIn(t);
    expectProblem(await ask(t, '0f8fad5b-d9cb-469f-a165-70867728950e', alice.token), 404, 'transaction-not-found');
    expectProblem(await ask(t, 'not-a-uuid', alice.token), 400);
    expectProblem(await t.api.request('POST', `/api/v1/transactions/${referenceId}/insights`), 401);
  });
});
