import { Client } from 'pg';
import { RunExecutor } from '../../src/schedules/run-executor';
import { type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { balanceOf, createScratchDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const ADMIN = uniqueUpiId('schedules-admin');
const MAX_PER_USER = 31;
const DUE_TOGETHER = 30;

interface Run {
  status: string;
  transactionReferenceId: string | null;
  problem: { type: string; detail: string } | null;
}

/**
 * What a standing instruction owes its sender: runs that go ahead when due (not refused by the API's
 * per-second limit), run keys no client can take first, and failures whose reasons the receiver never
 * reads; and what it owes the service: a cap on each sender's instructions. A database of its own,
 * so that no other test file's service runs these instructions.
 */
describe('scheduled transfers: runs when due, the sender kept private, keys and the cap', () => {
  let scratch: { url: string; drop: () => Promise<void> };
  let db: Client;
  let app: TestApp;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    db = new Client({ connectionString: scratch.url });
    await db.connect();
    // The default per-second rate limit (10): the one that refused runs due together.
    app = await startTestApp({
      DATABASE_URL: scratch.url,
      ADMIN_UPI_IDS: ADMIN,
      SCHEDULED_TRANSFERS_MAX_PER_USER: String(MAX_PER_USER),
    });
  });
  afterAll(async () => {
    await app?.close();
    await db?.end();
    await scratch?.drop();
  });

  const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString();
  const schedule = (sender: RegisteredUser, receiverUpiId: string, amount: number) =>
    app.api.post(
      '/api/v1/scheduled-transfers',
      { receiverUpiId, amount, frequency: 'WEEKLY', startAt: inOneHour() },
      { token: sender.token },
    );
  const created = async (sender: RegisteredUser, receiverUpiId: string, amount: number) => {
    const response = await schedule(sender, receiverUpiId, amount);
    expect(response.status).toBe(201);
    return response.body.referenceId as string;
  };
  /** Every named instruction falls due at `dueAt` (default: now), in one statement. */
  const dueAt = (referenceIds: string[], at: Date | null = null) =>
    db.query(
      `UPDATE scheduled_transfers SET start_at = coalesce($2, now()), next_run_at = coalesce($2, now())
       WHERE reference_id = ANY($1::uuid[])`,
      [referenceIds, at],
    );
  const runsOf = async (referenceId: string, token: string) => {
    const response = await app.api.get(`/api/v1/scheduled-transfers/${referenceId}/runs`, token);
    expect(response.status).toBe(200);
    return { runs: response.body as Run[], text: response.text };
  };
  const ran = (referenceIds: string[], token: string) =>
    waitUntil(
      async () => {
        for (const referenceId of referenceIds) if ((await runsOf(referenceId, token)).runs.length === 0) return false;
        return true;
      },
      `${referenceIds.length} runs`,
      60_000,
    );

  it(`runs ${DUE_TOGETHER} well-funded instructions of one sender due at the same moment: all complete`, async () => {
    const [sender, landlord] = await Promise.all([
      app.api.registerUser({ balance: 1000 }),
      app.api.registerUser({ balance: 0 }),
    ]);
    const references: string[] = [];
    for (let i = 0; i < DUE_TOGETHER; i += 1) references.push(await created(sender, landlord.upiId, 10));
    await dueAt(references);
    await ran(references, sender.token);
    const statuses = await Promise.all(
      references.map(async (referenceId) => (await runsOf(referenceId, sender.token)).runs.map((run) => run.status)),
    );
    expect(statuses.flat()).toEqual(Array.from({ length: DUE_TOGETHER }, () => 'COMPLETED'));
    expect(await balanceOf(db, sender.upiId)).toBe('700.0000');
    expect(await balanceOf(db, landlord.upiId)).toBe('300.0000');
    // The sender's own API calls still meet the per-second limit.
    const burst = await Promise.all(Array.from({ length: 25 }, () => app.api.transfer(sender, landlord.upiId, 1)));
    expect(burst.map((response) => response.status)).toContain(429);
  }, 120_000);

  it("shows the receiver that a run failed, never the sender's balance, freeze or limits", async () => {
    const admin = await app.api.registerUser({ upiId: ADMIN });
    const [poor, frozen, counted, landlord, friend] = await Promise.all([
      app.api.registerUser({ balance: 97.5 }),
      app.api.registerUser({ balance: 10_000 }),
      app.api.registerUser({ balance: 10_000 }),
      app.api.registerUser({ balance: 0 }),
      app.api.registerUser({ balance: 0 }),
    ]);
    const asAdmin = (method: string, path: string, body: unknown) =>
      app.api.request(method, `/api/v1/admin/users/${path}`, { token: admin.token, body });
    expect((await asAdmin('POST', `${frozen.referenceId}/freeze`, { reason: 'privacy test' })).status).toBe(200);
    expect((await asAdmin('PUT', `${counted.referenceId}/limits`, { dailyCountMax: 1 })).status).toBe(200);
    expect((await app.api.transfer(counted, friend.upiId, 1)).status).toBe(201);
    const senders = [poor, frozen, counted];
    const references = await Promise.all(senders.map((sender) => created(sender, landlord.upiId, 5000)));
    await dueAt(references);
    await ran(references, landlord.token);

    // The sender reads the whole problem.
    const ownViews = await Promise.all(references.map((id, i) => runsOf(id, senders[i].token)));
    expect(ownViews.map(({ runs }) => runs)).toEqual([
      [expect.objectContaining({ status: 'FAILED', problem: problemOf('insufficient-balance', '97.5000') })],
      [expect.objectContaining({ status: 'FAILED', problem: problemOf('account-frozen', "sender's account") })],
      [expect.objectContaining({ status: 'FAILED', problem: problemOf('limit-exceeded', 'daily count limit') })],
    ]);
    // The receiver reads only that each failed.
    for (const referenceId of references) {
      const { runs, text } = await runsOf(referenceId, landlord.token);
      expect(runs).toEqual([
        {
          dueAt: expect.any(String),
          ranAt: expect.any(String),
          status: 'FAILED',
          transactionReferenceId: null,
          problem: {
            type: expect.stringMatching(/^https?:\/\/.+\/payment-not-completed$/),
            detail: 'The payment could not be completed',
          },
        },
      ]);
      expect(text).not.toMatch(/97\.5|balance|frozen|limit|used/i);
      const instruction = await app.api.get(`/api/v1/scheduled-transfers/${referenceId}`, landlord.token);
      expect(instruction.status).toBe(200);
      expect(instruction.text).not.toMatch(/97\.5|balance|frozen|limit|used/i);
    }
    expect(await balanceOf(db, landlord.upiId)).toBe('0.0000');
  });

  it("runs an occurrence whose old-scheme Idempotency-Key the sender used first; the run's own key is no client's", async () => {
    const [sender, landlord, other] = await Promise.all([
      app.api.registerUser({ balance: 1000 }),
      app.api.registerUser({ balance: 0 }),
      app.api.registerUser({ balance: 0 }),
    ]);
    const referenceId = await created(sender, landlord.upiId, 100);
    const due = new Date(Date.now() - 60_000);
    // What the previous scheme would name this occurrence's run, taken first by the sender for another payment.
    const oldKey = `scheduled:${referenceId}:${due.getTime()}`;
    expect((await app.api.transfer(sender, other.upiId, 1, { key: oldKey })).status).toBe(201);
    await dueAt([referenceId], due);
    await ran([referenceId], sender.token);
    expect((await runsOf(referenceId, sender.token)).runs).toEqual([
      expect.objectContaining({ status: 'COMPLETED', problem: null, transactionReferenceId: expect.any(String) }),
    ]);
    expect(await balanceOf(db, landlord.upiId)).toBe('100.0000');
    expect(await balanceOf(db, other.upiId)).toBe('1.0000');
    expect(await balanceOf(db, sender.upiId)).toBe('899.0000');
    // The run's own key cannot be sent by any client.
    expectProblem(
      await app.api.transfer(sender, other.upiId, 1, { key: RunExecutor.idempotencyKey(referenceId, due) }),
      400,
      'idempotency-key-invalid',
    );
  });

  it('records, and does not repeat, an occurrence the previous version transferred under its old key', async () => {
    const [sender, landlord] = await Promise.all([
      app.api.registerUser({ balance: 1000 }),
      app.api.registerUser({ balance: 0 }),
    ]);
    const referenceId = await created(sender, landlord.upiId, 100);
    const due = new Date(Date.now() - 60_000);
    const oldKey = `scheduled:${referenceId}:${due.getTime()}`;
    // As the previous runner left it: the transfer committed under the old key, then the process died.
    const transfer = await app.api.transfer(sender, landlord.upiId, 100, { key: oldKey });
    expect(transfer.status).toBe(201);
    await db.query(
      `UPDATE idempotency_keys SET outcome = jsonb_set(outcome, '{instance}', to_jsonb($3::text))
       WHERE owner_upi_id = lower($1) AND idempotency_key = $2`,
      [sender.upiId, oldKey, `/api/v1/scheduled-transfers/${referenceId}/runs`],
    );
    await dueAt([referenceId], due);
    await ran([referenceId], sender.token);
    expect((await runsOf(referenceId, sender.token)).runs).toEqual([
      expect.objectContaining({ status: 'COMPLETED', transactionReferenceId: transfer.body.referenceId }),
    ]);
    expect(await balanceOf(db, landlord.upiId)).toBe('100.0000');
    expect(await balanceOf(db, sender.upiId)).toBe('900.0000');
  });

  it(`refuses a sender's instruction beyond ${MAX_PER_USER} live ones with 422 limit-exceeded, even all at once`, async () => {
    const [sender, landlord] = await Promise.all([
      app.api.registerUser({ balance: 100 }),
      app.api.registerUser({ balance: 0 }),
    ]);
    const answers = await Promise.all(
      Array.from({ length: MAX_PER_USER + 4 }, () => schedule(sender, landlord.upiId, 1)),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MAX_PER_USER);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused).toHaveLength(4);
    for (const answer of refused) {
      expectProblem(answer, 422, 'limit-exceeded');
      expect(answer.body.limit).toEqual({
        name: 'scheduled-transfers',
        max: MAX_PER_USER,
        used: MAX_PER_USER,
        remaining: 0,
        resetsAt: null,
      });
      expect(answer.body.detail).toContain(`${MAX_PER_USER} active or paused scheduled transfers`);
    }
    const live = await db.query(
      `SELECT count(*)::int AS n FROM scheduled_transfers WHERE lower(sender_upi_id) = lower($1)`,
      [sender.upiId],
    );
    expect(live.rows[0].n).toBe(MAX_PER_USER);
    // A paused one still counts; a cancelled one frees its slot.
    const [first, second] = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.referenceId);
    const act = (referenceId: string, what: string) =>
      app.api.post(`/api/v1/scheduled-transfers/${referenceId}/${what}`, undefined, { token: sender.token });
    expect((await act(first, 'pause')).status).toBe(200);
    expectProblem(await schedule(sender, landlord.upiId, 1), 422, 'limit-exceeded');
    expect((await act(second, 'cancel')).status).toBe(200);
    expect((await schedule(sender, landlord.upiId, 1)).status).toBe(201);
    expectProblem(await schedule(sender, landlord.upiId, 1), 422, 'limit-exceeded');
    // Another sender is not held by this one's cap.
    const neighbour = await app.api.registerUser({ balance: 100 });
    expect((await schedule(neighbour, landlord.upiId, 1)).status).toBe(201);
  });

  it('documents the cap and the receiver’s view of a failed run in the API document', async () => {
    const document = (await app.api.get('/v3/api-docs')).body;
    const create = document.paths['/api/v1/scheduled-transfers'].post;
    expect(Object.keys(create.responses['422'].content['application/problem+json'].examples)).toContain(
      'limit-exceeded',
    );
    expect(create.description).toContain('SCHEDULED_TRANSFERS_MAX_PER_USER');
    expect(document.paths['/api/v1/scheduled-transfers/{referenceId}/runs'].get.description).toContain(
      'payment-not-completed',
    );
  });
});

function problemOf(slug: string, detail: string) {
  return { type: expect.stringMatching(new RegExp(`/${slug}$`)), detail: expect.stringContaining(detail) };
}
