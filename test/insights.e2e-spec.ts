import { FakeAiModel } from './support/fake-ai-model';
import { expectProblem } from './support/problem';
import { startTestApp, type TestApp } from './support/test-app';

const AI_TIMEOUT_MS = 400;

describe('POST /api/v1/transactions/{id}/insights', () => {
  let model: FakeAiModel;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    model = await new FakeAiModel().start();
  });
  beforeEach(() => {
    model.mode = 'answer';
    model.category = 'SHOPPING';
    model.slowMs = 5000;
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(() => model.stop());

  async function appWith(env: Record<string, string> = {}): Promise<TestApp> {
    const app = await startTestApp({
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

  /** A transfer with a note the rule-based classifier reads as food. */
  async function transferIn(t: TestApp, note = 'Swiggy dinner') {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 1000 }), t.api.registerUser({ balance: 0 })]);
    const created = await t.api.transfer(alice, bob.upiId, '450', { note });
    expect(created.status).toBe(201);
    return { alice, bob, referenceId: created.body.referenceId as string };
  }

  const ask = (t: TestApp, referenceId: string, token: string) =>
    t.api.request('POST', `/api/v1/transactions/${referenceId}/insights`, { token });

  it("answers with the model's assessment and sends it an OpenAI-compatible request", async () => {
    const t = await appWith();
    const { alice, referenceId } = await transferIn(t);
    const calls = model.calls.length;
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
    const { alice, referenceId } = await transferIn(t);
    model.mode = mode;
    const started = Date.now();
    const response = await ask(t, referenceId, alice.token);
    expect(Date.now() - started).toBeLessThan(AI_TIMEOUT_MS + 1000);
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

  it('does not store a fallback answer: the model answers once it is back', async () => {
    const t = await appWith({ AI_CIRCUIT_THRESHOLD: '5' });
    const { alice, referenceId } = await transferIn(t);
    model.mode = 'error';
    expect((await ask(t, referenceId, alice.token)).body.source).toBe('RULE_BASED_FALLBACK');
    model.mode = 'answer';
    expect((await ask(t, referenceId, alice.token)).body).toEqual(
      expect.objectContaining({ source: 'AI_MODEL', category: 'SHOPPING' }),
    );
  });

  it('opens aiCircuitBreaker after repeated failures: no call reaches the model while it is open', async () => {
    const t = await appWith();
    const { alice, referenceId } = await transferIn(t);
    model.mode = 'error';
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
    const { alice, referenceId } = await transferIn(t, 'Netflix');
    const calls = model.calls.length;
    const response = await ask(t, referenceId, alice.token);
    expect(response.body).toEqual(
      expect.objectContaining({ category: 'ENTERTAINMENT', source: 'RULE_BASED_FALLBACK' }),
    );
    expect(model.calls.length).toBe(calls);
  });

  it('answers 503 feature-disabled when INSIGHTS_ENABLED=false', async () => {
    const t = await appWith({ INSIGHTS_ENABLED: 'false' });
    const { alice, referenceId } = await transferIn(t);
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
