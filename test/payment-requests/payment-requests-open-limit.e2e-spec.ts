import type { Client } from 'pg';
import type { RegisteredUser } from '../support/api-client';
import { connectTestDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * PAYMENT_REQUESTS_OPEN_MAX (issue 38): a payee holds at most so many OPEN, unexpired requests;
 * the next creation is 422 payment-request-limit-reached and stores nothing. Paying, cancelling or
 * expiry frees a slot. Here the cap is 3.
 */
describe('the per-payee cap on open payment requests', () => {
  let t: TestApp;
  let db: Client;
  beforeAll(async () => {
    [t, db] = await Promise.all([startTestApp({ PAYMENT_REQUESTS_OPEN_MAX: '3' }), connectTestDatabase()]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), db.end()]);
  });

  const create = (payee: RegisteredUser, body: Record<string, unknown> = { amount: 1 }) =>
    t.api.post('/api/v1/payment-requests', body, { token: payee.token });
  const storedCount = async (payee: RegisteredUser) =>
    Number(
      (
        await db.query('SELECT count(*) AS n FROM payment_requests WHERE lower(payee_upi_id) = lower($1)', [
          payee.upiId,
        ])
      ).rows[0].n,
    );

  it('refuses the fourth open request with 422 payment-request-limit-reached, naming the cap and the next expiry', async () => {
    const payee = await t.api.registerUser();
    const made = [];
    for (const expiresInSeconds of [600, 120, 900]) {
      const created = await create(payee, { amount: 1, expiresInSeconds });
      expect(created.status).toBe(201);
      made.push(created.body);
    }
    const refused = await create(payee, { amount: 1, note: 'one too many' });
    expectProblem(refused, 422, 'payment-request-limit-reached');
    expect(refused.body.title).toBe('Payment Request Limit Reached');
    expect(refused.body.detail).toBe(
      'You have 3 open payment requests, the most allowed: cancel one, or wait until one is paid ' +
        `or expires (the next at ${made[1].expiresAt})`,
    );
    expect(await storedCount(payee)).toBe(3);
    // Another payee is not affected.
    expect((await create(await t.api.registerUser())).status).toBe(201);
  });

  it('a cancelled, paid or expired request frees its slot', async () => {
    const [payee, payer] = await Promise.all([t.api.registerUser({ balance: 0 }), t.api.registerUser()]);
    const made = [];
    for (let i = 0; i < 3; i += 1) made.push((await create(payee)).body);
    expectProblem(await create(payee), 422, 'payment-request-limit-reached');

    const cancel = `/api/v1/payment-requests/${made[0].referenceId}/cancel`;
    expect((await t.api.post(cancel, undefined, { token: payee.token })).status).toBe(200);
    expect((await create(payee)).status).toBe(201);
    expectProblem(await create(payee), 422, 'payment-request-limit-reached');

    const paid = await t.api.post(
      `/api/v1/payment-requests/${made[1].referenceId}/payments`,
      {},
      {
        token: payer.token,
        headers: { 'idempotency-key': `pay-${made[1].referenceId}` },
      },
    );
    expect(paid.status).toBe(201);
    expect((await create(payee)).status).toBe(201);
    expectProblem(await create(payee), 422, 'payment-request-limit-reached');

    await db.query(
      `UPDATE payment_requests SET created_at = created_at - interval '1 hour', expires_at = clock_timestamp() - interval '1 second'
       WHERE reference_id = $1`,
      [made[2].referenceId],
    );
    expect((await create(payee)).status).toBe(201);
    expect(await storedCount(payee)).toBe(6);
  });

  it('creations racing at the cap: exactly three succeed, the others are refused', async () => {
    const payee = await t.api.registerUser();
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(payee)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expectProblem(answer, 422, 'payment-request-limit-reached');
    }
    expect(await storedCount(payee)).toBe(3);
  });

  it('the API document lists payment-request-limit-reached among the 422s of creating a request', async () => {
    const create = (await t.api.get('/v3/api-docs')).body.paths['/api/v1/payment-requests'].post;
    const examples = create.responses['422'].content['application/problem+json'].examples;
    expect(Object.keys(examples)).toEqual(['validation-failed', 'payment-request-limit-reached']);
    expect(examples['payment-request-limit-reached'].value).toMatchObject({
      type: 'https://errors.payments.local/payment-request-limit-reached',
      status: 422,
      title: 'Payment Request Limit Reached',
    });
  });
});
