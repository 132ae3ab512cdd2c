import type { Client } from 'pg';
import type { ApiClient, RegisteredUser } from '../support/api-client';
import { balanceOf, connectTestDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';
import { asApiResponse, rawText, typedClient } from '../support/typed-client';
import { waitUntil } from '../support/wait';

const HOUR = 3_600_000;
const inOneHour = () => new Date(Date.now() + HOUR).toISOString();

describe('scheduled transfers', () => {
  let db: Client;
  // Only this file's instructions: other test files may be running theirs meanwhile.
  const ours: string[] = [];
  let app: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    db = await connectTestDatabase();
    app = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
    api = app.api;
  });
  afterAll(async () => {
    // Nothing of these tests runs later in another test's service.
    await db.query(
      `UPDATE scheduled_transfers SET status = 'CANCELLED', next_run_at = NULL
       WHERE status = 'ACTIVE' AND reference_id = ANY($1::uuid[])`,
      [ours],
    );
    await app.close();
    await db.end();
  });

  const schedule = async (sender: RegisteredUser, body: Record<string, unknown>) => {
    const response = await api.post('/api/v1/scheduled-transfers', body, { token: sender.token });
    if (response.status === 201) ours.push(response.body.referenceId as string);
    return response;
  };
  const runsOf = async (referenceId: string, token: string) => {
    const response = await api.get(`/api/v1/scheduled-transfers/${referenceId}/runs`, token);
    expect(response.status).toBe(200);
    return response.body as {
      dueAt: string;
      ranAt: string;
      status: string;
      transactionReferenceId: string | null;
      problem: { type: string; detail: string } | null;
    }[];
  };
  const waitForRuns = async (referenceId: string, token: string, count: number) => {
    await waitUntil(
      async () => (await runsOf(referenceId, token)).length >= count,
      `${count} runs of ${referenceId}`,
      30_000,
    );
    return runsOf(referenceId, token);
  };
  /** Moves an instruction's calendar back, as if the clock had moved on by `interval` (SQL interval). */
  const shiftBack = (referenceId: string, interval: string) =>
    db.query(
      `UPDATE scheduled_transfers SET start_at = start_at - $2::interval, next_run_at = next_run_at - $2::interval
       WHERE reference_id = $1`,
      [referenceId, interval],
    );
  /** Sets the calendar so that its first occurrence was `interval` ago: the service was down meanwhile. */
  const startedAgo = (referenceId: string, interval: string) =>
    db.query(
      `UPDATE scheduled_transfers SET start_at = now() - $2::interval, next_run_at = now() - $2::interval
       WHERE reference_id = $1`,
      [referenceId, interval],
    );

  it('runs a ONCE instruction within a few seconds of its time, once, as a transfer (typed client)', async () => {
    const [sender, receiver] = await Promise.all([
      api.registerUser({ balance: 500 }),
      api.registerUser({ balance: 0 }),
    ]);
    const client = typedClient(api.baseUrl, sender.token);
    const startAt = new Date(Date.now() + 2000).toISOString();
    const created = await client.POST('/api/v1/scheduled-transfers', {
      body: { receiverUpiId: receiver.upiId, amount: 120.5, note: 'gift', frequency: 'ONCE', startAt },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toEqual(
      expect.objectContaining({
        senderUpiId: sender.upiId,
        receiverUpiId: receiver.upiId,
        note: 'gift',
        frequency: 'ONCE',
        status: 'ACTIVE',
        startAt,
        nextRunAt: startAt,
        occurrences: 0,
        endAt: null,
        maxOccurrences: null,
      }),
    );
    // The wire carries a JSON number with four decimals; the typed client hands it back as exact text.
    expect(rawText(created.response)).toContain('"amount":120.5000');
    expect(Number(created.data!.amount)).toBe(120.5);
    const referenceId = created.data!.referenceId;
    const [run] = await waitForRuns(referenceId, sender.token, 1);
    expect(run).toEqual(
      expect.objectContaining({
        dueAt: startAt,
        status: 'COMPLETED',
        problem: null,
        transactionReferenceId: expect.any(String),
      }),
    );
    expect(Date.parse(run.ranAt) - Date.parse(run.dueAt)).toBeLessThan(10_000);
    expect(Date.parse(run.ranAt)).toBeGreaterThanOrEqual(Date.parse(run.dueAt));
    const transaction = await api.get(`/api/v1/transactions/${run.transactionReferenceId}`, receiver.token);
    expect(transaction.body).toEqual(
      expect.objectContaining({
        senderUpiId: sender.upiId,
        receiverUpiId: receiver.upiId,
        amount: 120.5,
        note: 'gift',
      }),
    );
    const read = await typedClient(api.baseUrl, receiver.token).GET('/api/v1/scheduled-transfers/{referenceId}', {
      params: { path: { referenceId } },
    });
    expect(read.data).toEqual(expect.objectContaining({ status: 'COMPLETED', nextRunAt: null, occurrences: 1 }));
    expect(await balanceOf(db, sender.upiId)).toBe('379.5000');
    expect(await balanceOf(db, receiver.upiId)).toBe('120.5000');
    // Nothing more runs: still one run and one transaction a few ticks later.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await runsOf(referenceId, sender.token)).toHaveLength(1);
    expect(await balanceOf(db, receiver.upiId)).toBe('120.5000');
  });

  it('records a run that fails for insufficient balance, and the next occurrence goes ahead', async () => {
    const [sender, receiver, friend] = await Promise.all([
      api.registerUser({ balance: 50 }),
      api.registerUser({ balance: 0 }),
      api.registerUser({ balance: 500 }),
    ]);
    const created = await schedule(sender, {
      receiverUpiId: receiver.upiId,
      amount: 60,
      frequency: 'DAILY',
      startAt: inOneHour(),
    });
    expect(created.status).toBe(201);
    const { referenceId } = created.body;
    await startedAgo(referenceId, '23 hours');
    const [failed] = await waitForRuns(referenceId, sender.token, 1);
    expect(failed).toEqual(
      expect.objectContaining({
        status: 'FAILED',
        transactionReferenceId: null,
        problem: { type: expect.stringMatching(/\/insufficient-balance$/), detail: expect.stringContaining('50.0000') },
      }),
    );
    expect(await balanceOf(db, sender.upiId)).toBe('50.0000');
    expect((await api.get(`/api/v1/scheduled-transfers/${referenceId}`, sender.token)).body).toEqual(
      expect.objectContaining({
        status: 'ACTIVE',
        occurrences: 1,
        nextRunAt: new Date(Date.parse(failed.dueAt) + 24 * HOUR).toISOString(),
      }),
    );
    expect((await api.transfer(friend, sender.upiId, 100)).status).toBe(201);
    // The next day comes: the failed occurrence is not retried, the next one runs.
    await shiftBack(referenceId, '1 hour 1 minute');
    const runs = await waitForRuns(referenceId, sender.token, 2);
    expect(runs.map((r) => r.status)).toEqual(['COMPLETED', 'FAILED']);
    expect(await balanceOf(db, sender.upiId)).toBe('90.0000');
    expect(await balanceOf(db, receiver.upiId)).toBe('60.0000');
  });

  it('catches up a run missed during a 2-minute outage, and records MISSED past 24 hours', async () => {
    const [sender, receiver] = await Promise.all([
      api.registerUser({ balance: 1000 }),
      api.registerUser({ balance: 0 }),
    ]);
    const make = async () =>
      (await schedule(sender, { receiverUpiId: receiver.upiId, amount: 10, frequency: 'DAILY', startAt: inOneHour() }))
        .body.referenceId as string;
    const recent = await make();
    const old = await make();
    await app.close(); // the outage
    await startedAgo(recent, '2 minutes');
    await startedAgo(old, '25 hours');
    app = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
    api = app.api;

    const [caughtUp] = await waitForRuns(recent, sender.token, 1);
    expect(caughtUp.status).toBe('COMPLETED');
    expect(Date.parse(caughtUp.ranAt) - Date.parse(caughtUp.dueAt)).toBeGreaterThanOrEqual(2 * 60_000);
    // 25 h late: MISSED, nothing moves; the occurrence 1 h ago is within the window and runs.
    const oldRuns = await waitForRuns(old, sender.token, 2);
    expect(oldRuns.map((r) => [r.status, r.transactionReferenceId === null])).toEqual([
      ['COMPLETED', false],
      ['MISSED', true],
    ]);
    expect(Date.parse(oldRuns[0].dueAt) - Date.parse(oldRuns[1].dueAt)).toBe(24 * HOUR);
    expect(await balanceOf(db, receiver.upiId)).toBe('20.0000');
    const instruction = (await api.get(`/api/v1/scheduled-transfers/${old}`, sender.token)).body;
    expect(instruction).toEqual(expect.objectContaining({ status: 'ACTIVE', occurrences: 2 }));
    expect(Date.parse(instruction.nextRunAt)).toBe(Date.parse(oldRuns[0].dueAt) + 24 * HOUR);
  });

  it('skips occurrences while paused; resume runs the next one after now; cancel ends it', async () => {
    const [sender, receiver] = await Promise.all([
      api.registerUser({ balance: 1000 }),
      api.registerUser({ balance: 0 }),
    ]);
    const { referenceId } = (
      await schedule(sender, { receiverUpiId: receiver.upiId, amount: 10, frequency: 'DAILY', startAt: inOneHour() })
    ).body;
    const paused = await api.post(`/api/v1/scheduled-transfers/${referenceId}/pause`, undefined, {
      token: sender.token,
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual(expect.objectContaining({ status: 'PAUSED', nextRunAt: null }));
    expectProblem(
      await api.post(`/api/v1/scheduled-transfers/${referenceId}/pause`, undefined, { token: sender.token }),
      409,
      'conflict',
    );
    expectProblem(
      await api.post(`/api/v1/scheduled-transfers/${referenceId}/resume`, undefined, { token: receiver.token }),
      403,
    );
    // Three occurrences fall due while paused.
    await shiftBack(referenceId, '2 days 2 hours');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await runsOf(referenceId, sender.token)).toEqual([]);
    const resumed = await api.post(`/api/v1/scheduled-transfers/${referenceId}/resume`, undefined, {
      token: sender.token,
    });
    expect(resumed.status).toBe(200);
    const startAt = Date.parse(resumed.body.startAt);
    expect(resumed.body.status).toBe('ACTIVE');
    expect(Date.parse(resumed.body.nextRunAt)).toBe(startAt + 3 * 24 * HOUR);
    expect(Date.parse(resumed.body.nextRunAt)).toBeGreaterThan(Date.now());
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await runsOf(referenceId, sender.token)).toEqual([]);
    expect(await balanceOf(db, receiver.upiId)).toBe('0.0000');
    const cancelled = await api.post(`/api/v1/scheduled-transfers/${referenceId}/cancel`, undefined, {
      token: sender.token,
    });
    expect(cancelled.body).toEqual(expect.objectContaining({ status: 'CANCELLED', nextRunAt: null }));
    expectProblem(
      await api.post(`/api/v1/scheduled-transfers/${referenceId}/resume`, undefined, { token: sender.token }),
      409,
      'conflict',
    );
    const list = await typedClient(api.baseUrl, sender.token).GET('/api/v1/users/{referenceId}/scheduled-transfers', {
      params: { path: { referenceId: sender.referenceId } },
    });
    expect(list.data?.map((s) => [s.referenceId, s.status])).toEqual([[referenceId, 'CANCELLED']]);
  });

  it('completes a series after maxOccurrences', async () => {
    const [sender, receiver] = await Promise.all([
      api.registerUser({ balance: 1000 }),
      api.registerUser({ balance: 0 }),
    ]);
    const created = await schedule(sender, {
      receiverUpiId: receiver.upiId,
      amount: 5,
      frequency: 'WEEKLY',
      startAt: inOneHour(),
      maxOccurrences: 1,
    });
    expect({ status: created.status, body: created.body }).toEqual({
      status: 201,
      body: expect.objectContaining({ maxOccurrences: 1 }),
    });
    const { referenceId } = created.body;
    await startedAgo(referenceId, '1 minute');
    await waitForRuns(referenceId, sender.token, 1);
    expect((await api.get(`/api/v1/scheduled-transfers/${referenceId}`, sender.token)).body).toEqual(
      expect.objectContaining({ status: 'COMPLETED', nextRunAt: null, occurrences: 1 }),
    );
  });

  it('answers bad input with problem+json and changes nothing', async () => {
    const [sender, receiver, stranger] = await Promise.all([
      api.registerUser({ balance: 100 }),
      api.registerUser({ balance: 0 }),
      api.registerUser({ balance: 0 }),
    ]);
    const good = { receiverUpiId: receiver.upiId, amount: 10, frequency: 'DAILY', startAt: inOneHour() };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...good, amount: 0 }, 422, 'validation-failed'],
      [{ ...good, amount: 'ten' }, 422, 'validation-failed'],
      [{ ...good, frequency: 'HOURLY' }, 422, 'validation-failed'],
      [{ ...good, startAt: 'next tuesday' }, 422, 'validation-failed'],
      [{ ...good, startAt: new Date(Date.now() - HOUR).toISOString() }, 422, 'validation-failed'],
      [{ ...good, endAt: new Date(Date.now() + HOUR / 2).toISOString() }, 422, 'validation-failed'],
      [{ ...good, maxOccurrences: 0 }, 422, 'validation-failed'],
      [{ ...good, maxOccurrences: 1.5 }, 422, 'validation-failed'],
      [{ ...good, receiverUpiId: 'not a upi id' }, 422, 'validation-failed'],
      [{ ...good, receiverUpiId: 'nobody.here@okbank' }, 404, 'user-not-found'],
      [{ ...good, receiverUpiId: sender.upiId.toUpperCase() }, 400, 'self-transfer'],
    ];
    for (const [body, status, slug] of cases) expectProblem(await schedule(sender, body), status, slug);
    expectProblem(await api.post('/api/v1/scheduled-transfers', good), 401);
    expectProblem(
      await api.request('POST', '/api/v1/scheduled-transfers', { token: sender.token, rawBody: '{"amount":' }),
      400,
    );
    const created = await schedule(sender, good);
    expect(created.status).toBe(201);
    const { referenceId } = created.body;
    expectProblem(await api.get(`/api/v1/scheduled-transfers/${referenceId}`, stranger.token), 403);
    expectProblem(await api.get(`/api/v1/scheduled-transfers/${referenceId}/runs`, stranger.token), 403);
    expectProblem(
      await api.post(`/api/v1/scheduled-transfers/${referenceId}/cancel`, undefined, { token: receiver.token }),
      403,
    );
    expectProblem(
      await api.get('/api/v1/scheduled-transfers/6d0f3c2a-8b1e-4f5a-9c7d-2e4b6a8c0d1f', sender.token),
      404,
      'not-found',
    );
    expectProblem(await api.get('/api/v1/scheduled-transfers/not-a-uuid', sender.token), 400);
    expectProblem(await api.get(`/api/v1/users/${sender.referenceId}/scheduled-transfers`, stranger.token), 403);
    const typed = await typedClient(api.baseUrl, sender.token).POST('/api/v1/scheduled-transfers', {
      body: { ...good, frequency: 'YEARLY' as 'DAILY' },
    });
    expectProblem(asApiResponse(typed), 422, 'validation-failed');
    // Only the one good instruction exists, unchanged; nothing moved.
    const { rows } = await db.query(
      `SELECT reference_id, status FROM scheduled_transfers WHERE lower(sender_upi_id) = lower($1)`,
      [sender.upiId],
    );
    expect(rows).toEqual([{ reference_id: referenceId, status: 'ACTIVE' }]);
    expect(await balanceOf(db, sender.upiId)).toBe('100.0000');
  });
});
