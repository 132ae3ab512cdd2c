import jsQR from 'jsqr';
import type { Client } from 'pg';
import { PNG } from 'pngjs';
import { newIdempotencyKey, type RegisteredUser } from '../support/api-client';
import { balanceOf, connectTestDatabase } from '../support/db';
import { FakeUpiProvider } from '../support/fake-upi-provider';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';
import { asApiResponse, typedClient } from '../support/typed-client';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Payment requests over the real HTTP stack and PostgreSQL. `t` verifies payees with a fake UPI
 * provider; users are registered through `plain` (no provider), so no acceptance is cached and
 * every payment asks the provider about its payee.
 */
describe('payment requests', () => {
  let t: TestApp;
  let plain: TestApp;
  let provider: FakeUpiProvider;
  let db: Client;
  beforeAll(async () => {
    provider = await new FakeUpiProvider().start();
    [t, plain, db] = await Promise.all([
      startTestApp({ UPI_VERIFICATION_URL: `${provider.url}/verify`, RATE_LIMIT_PER_SECOND: '1000' }),
      startTestApp(),
      connectTestDatabase(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), plain.close(), db.end()]);
    await provider.stop();
  });

  const user = (balance: number | string = 1000, name?: string) => plain.api.registerUser({ balance, name });
  const createRequest = (payee: RegisteredUser, body: Record<string, unknown>) =>
    t.api.post('/api/v1/payment-requests', body, { token: payee.token });
  const pay = (
    payer: RegisteredUser,
    referenceId: string,
    body: Record<string, unknown> = {},
    key = newIdempotencyKey(),
  ) =>
    t.api.post(`/api/v1/payment-requests/${referenceId}/payments`, body, {
      token: payer.token,
      headers: { 'idempotency-key': key },
    });
  const read = (referenceId: string, token: string) => t.api.get(`/api/v1/payment-requests/${referenceId}`, token);
  const requestRow = async (referenceId: string) =>
    (
      await db.query('SELECT status, transaction_reference_id FROM payment_requests WHERE reference_id = $1', [
        referenceId,
      ])
    ).rows[0];

  it('creates a fixed-amount request: 201, Location, the contract fields, readable by anyone authenticated', async () => {
    const [payee, stranger] = await Promise.all([user(0, 'Bob Kumar'), user()]);
    const created = await createRequest(payee, { amount: 250.5, note: 'Dinner', expiresInSeconds: 600 });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/payment-requests/${created.body.referenceId}`);
    expect(created.body).toEqual({
      referenceId: expect.stringMatching(UUID),
      payeeUpiId: payee.upiId,
      payeeName: 'Bob Kumar',
      amount: 250.5,
      note: 'Dinner',
      status: 'OPEN',
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      paidAt: null,
      transactionReferenceId: null,
      upiUri: `upi://pay?pa=${payee.upiId}&pn=Bob%20Kumar&am=250.50&cu=INR&tn=Dinner&tr=${created.body.referenceId}`,
    });
    expect(Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt)).toBe(600_000);
    const seen = await read(created.body.referenceId, stranger.token);
    expect(seen.status).toBe(200);
    expect(seen.body).toEqual(created.body);
    expect(seen.text).toContain('"amount":250.5000');
  });

  it('pays a fixed amount: 201 TRANSFER payer → payee with paymentRequestReferenceId, PAID in the same transaction, one event', async () => {
    const [payee, payer] = await Promise.all([user(10), user(500)]);
    const request = (await createRequest(payee, { amount: 120, note: 'rent share' })).body;
    const paid = await pay(payer, request.referenceId);
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({
      senderUpiId: payer.upiId,
      receiverUpiId: payee.upiId,
      amount: 120,
      type: 'TRANSFER',
      status: 'COMPLETED',
      note: 'rent share',
      paymentRequestReferenceId: request.referenceId,
    });
    expect(await balanceOf(db, payer.upiId)).toBe('380.0000');
    expect(await balanceOf(db, payee.upiId)).toBe('130.0000');
    const after = (await read(request.referenceId, payer.token)).body;
    expect(after).toMatchObject({ status: 'PAID', transactionReferenceId: paid.body.referenceId });
    expect(Date.parse(after.paidAt)).toBeGreaterThanOrEqual(Date.parse(after.createdAt));
    const events = await db.query(`SELECT payload FROM outbox_events WHERE payload::jsonb @> $1`, [
      JSON.stringify({ transactionReferenceId: paid.body.referenceId }),
    ]);
    expect(events.rows).toHaveLength(1);
    expect(JSON.parse(events.rows[0].payload)).toMatchObject({
      eventType: 'TransferCompleted',
      paymentRequestReferenceId: request.referenceId,
      amount: '120.0000',
    });
    // A plain transfer's event is as it always was: no paymentRequestReferenceId key at all.
    const plainTransfer = await t.api.transfer(payer, payee.upiId, 1);
    const plainEvent = await db.query(`SELECT payload FROM outbox_messages() WHERE payload::jsonb @> $1`, [
      JSON.stringify({ transactionReferenceId: plainTransfer.body.referenceId }),
    ]);
    expect(plainEvent.rows[0].payload).not.toContain('paymentRequestReferenceId');
    expect(plainTransfer.body).not.toHaveProperty('paymentRequestReferenceId');
    expectProblem(await pay(payer, request.referenceId), 409, 'payment-request-not-open');
  });

  it('pays an open amount with the amount the payer chooses, which is then required', async () => {
    const [payee, payer] = await Promise.all([user(0), user(100)]);
    const request = (await createRequest(payee, {})).body;
    expect(request).toMatchObject({ amount: null, note: null });
    expect(request.upiUri).toBe(`upi://pay?pa=${payee.upiId}&pn=Test%20User&cu=INR&tr=${request.referenceId}`);
    const missing = await pay(payer, request.referenceId, {});
    expectProblem(missing, 422, 'validation-failed');
    expect(missing.body.errors).toHaveProperty('amount');
    const paid = await pay(payer, request.referenceId, { amount: 42.25, note: 'for the cab' });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ amount: 42.25, note: 'for the cab' });
    expect(await balanceOf(db, payee.upiId)).toBe('42.2500');
  });

  it('a wrong amount is 422 on amount and changes nothing', async () => {
    const [payee, payer] = await Promise.all([user(0), user(100)]);
    const request = (await createRequest(payee, { amount: 10 })).body;
    const wrong = await pay(payer, request.referenceId, { amount: 10.01 });
    expectProblem(wrong, 422, 'validation-failed');
    expect(wrong.body.errors).toHaveProperty('amount');
    expect(await balanceOf(db, payer.upiId)).toBe('100.0000');
    expect((await requestRow(request.referenceId)).status).toBe('OPEN');
    expect((await pay(payer, request.referenceId, { amount: '10.00' })).status).toBe(201);
  });

  it("paying one's own request is 400 self-transfer, and the request stays OPEN", async () => {
    const payee = await user(100);
    const request = (await createRequest(payee, { amount: 5 })).body;
    expectProblem(await pay(payee, request.referenceId), 400, 'self-transfer');
    expect((await requestRow(request.referenceId)).status).toBe('OPEN');
    expect(await balanceOf(db, payee.upiId)).toBe('100.0000');
  });

  it('payers racing for one request: exactly one 201, the others 409 payment-request-not-open; balances exact', async () => {
    const payee = await user(0);
    const payers = await Promise.all(Array.from({ length: 6 }, () => user(100)));
    const request = (await createRequest(payee, { amount: 30 })).body;
    const answers = await Promise.all(payers.map((payer) => pay(payer, request.referenceId)));
    const winners = answers.filter((answer) => answer.status === 201);
    expect(winners).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expectProblem(answer, 409, 'payment-request-not-open');
      expect(answer.body.detail).toContain('PAID');
    }
    expect(await balanceOf(db, payee.upiId)).toBe('30.0000');
    // One connection runs one query at a time: read the balances in turn.
    const balances: string[] = [];
    for (const payer of payers) balances.push(await balanceOf(db, payer.upiId));
    expect(balances.sort()).toEqual(['100.0000', '100.0000', '100.0000', '100.0000', '100.0000', '70.0000']);
    expect(await requestRow(request.referenceId)).toEqual({
      status: 'PAID',
      transaction_reference_id: winners[0].body.referenceId,
    });
  });

  it('replays a payment with its key: same bytes, Idempotent-Replayed, money moved once; another body under it is 400', async () => {
    const [payee, payer] = await Promise.all([user(0), user(100)]);
    const request = (await createRequest(payee, { amount: 25 })).body;
    const key = newIdempotencyKey();
    const first = await pay(payer, request.referenceId, {}, key);
    const again = await pay(payer, request.referenceId, {}, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await balanceOf(db, payer.upiId)).toBe('75.0000');
    expectProblem(await pay(payer, request.referenceId, { note: 'other' }, key), 400, 'idempotency-key-reused');
    // The same key for another request is another request too.
    const other = (await createRequest(payee, { amount: 25 })).body;
    expectProblem(await pay(payer, other.referenceId, {}, key), 400, 'idempotency-key-reused');
  });

  it('cancel: the payee only (403 otherwise), then paying is 409 and cancelling again is 409', async () => {
    const [payee, payer] = await Promise.all([user(0), user(100)]);
    const request = (await createRequest(payee, { amount: 5 })).body;
    const cancelPath = `/api/v1/payment-requests/${request.referenceId}/cancel`;
    expectProblem(await t.api.post(cancelPath, undefined, { token: payer.token }), 403, 'forbidden-operation');
    const cancelled = await t.api.post(cancelPath, undefined, { token: payee.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ referenceId: request.referenceId, status: 'CANCELLED' });
    const refused = await pay(payer, request.referenceId);
    expectProblem(refused, 409, 'payment-request-not-open');
    expect(refused.body.detail).toContain('CANCELLED');
    expectProblem(await t.api.post(cancelPath, undefined, { token: payee.token }), 409, 'payment-request-not-open');
    expect(await balanceOf(db, payer.upiId)).toBe('100.0000');
  });

  it('expiry: past expiresAt (moved in SQL) it reads EXPIRED, paying is 409 and cancelling is 409', async () => {
    const [payee, payer] = await Promise.all([user(0), user(100)]);
    const request = (await createRequest(payee, { amount: 5, expiresInSeconds: 60 })).body;
    await db.query(
      `UPDATE payment_requests SET created_at = created_at - interval '2 minutes',
         expires_at = expires_at - interval '2 minutes' WHERE reference_id = $1`,
      [request.referenceId],
    );
    expect((await read(request.referenceId, payer.token)).body.status).toBe('EXPIRED');
    const refused = await pay(payer, request.referenceId);
    expectProblem(refused, 409, 'payment-request-not-open');
    expect(refused.body.detail).toContain('EXPIRED');
    expectProblem(
      await t.api.post(`/api/v1/payment-requests/${request.referenceId}/cancel`, undefined, { token: payee.token }),
      409,
      'payment-request-not-open',
    );
    expect(await balanceOf(db, payer.upiId)).toBe('100.0000');
  });

  it('every transfer rule applies: a payee the UPI provider rejects 422, insufficient balance 422', async () => {
    const [payee, poor, rich] = await Promise.all([user(0), user(1), user(100)]);
    const request = (await createRequest(payee, { amount: 50 })).body;
    provider.rejected.add(payee.upiId.toLowerCase());
    try {
      expectProblem(await pay(rich, request.referenceId), 422, 'invalid-upi-id');
    } finally {
      provider.rejected.delete(payee.upiId.toLowerCase());
    }
    expect((await requestRow(request.referenceId)).status).toBe('OPEN');
    expect(await balanceOf(db, rich.upiId)).toBe('100.0000');
    expectProblem(await pay(poor, request.referenceId), 422, 'insufficient-balance');
    expect((await requestRow(request.referenceId)).status).toBe('OPEN');
    expect(await balanceOf(db, poor.upiId)).toBe('1.0000');
  });

  it('a request that is not OPEN decides first: a payer too poor to pay it learns it is PAID (409), not 422', async () => {
    const [payee, poor, rich] = await Promise.all([user(0), user(1), user(100)]);
    const request = (await createRequest(payee, { amount: 50 })).body;
    expect((await pay(rich, request.referenceId)).status).toBe(201);
    const refused = await pay(poor, request.referenceId);
    expectProblem(refused, 409, 'payment-request-not-open');
    expect(refused.body.detail).toContain('PAID');
    expect(await balanceOf(db, poor.upiId)).toBe('1.0000');
    expect((await requestRow(request.referenceId)).status).toBe('PAID');
  });

  it('the QR code (SVG, and PNG on request) decodes back to upiUri', async () => {
    const payee = await user(0, 'Asha Rao');
    const request = (await createRequest(payee, { amount: 99.9, note: 'Chai & samosa = ₹99.90' })).body;
    const svg = await t.api.get(`/api/v1/payment-requests/${request.referenceId}/qr`, payee.token);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(svg.text).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const png = await fetch(`${t.api.baseUrl}/api/v1/payment-requests/${request.referenceId}/qr?format=png`, {
      headers: { authorization: `Bearer ${payee.token}` },
    });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const image = PNG.sync.read(Buffer.from(await png.arrayBuffer()));
    const decoded = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
    expect(decoded?.data).toBe(request.upiUri);
    expectProblem(
      await t.api.get(`/api/v1/payment-requests/${request.referenceId}/qr?format=gif`, payee.token),
      422,
      'validation-failed',
    );
  });

  it('upiUri is percent-encoded exactly: spaces, &, =, non-ASCII', async () => {
    const payee = await user(0, 'Zoë & Ravi = Co');
    const request = (await createRequest(payee, { amount: 1, note: 'a b&c=d ₹ café' })).body;
    expect(request.upiUri).toBe(
      `upi://pay?pa=${payee.upiId}&pn=Zo%C3%AB%20%26%20Ravi%20%3D%20Co&am=1.00&cu=INR` +
        `&tn=a%20b%26c%3Dd%20%E2%82%B9%20caf%C3%A9&tr=${request.referenceId}`,
    );
    const query = new URL(request.upiUri.replace('upi://pay', 'https://upi.invalid/pay')).searchParams;
    expect(query.get('pn')).toBe('Zoë & Ravi = Co');
    expect(query.get('tn')).toBe('a b&c=d ₹ café');
  });

  it('the payee lists their own requests, newest first, by page and by cursor, filtered by status; others get 403', async () => {
    const [payee, other] = await Promise.all([user(0), user(100)]);
    const made = [];
    for (let i = 1; i <= 3; i += 1) made.push((await createRequest(payee, { amount: i })).body);
    await t.api.post(`/api/v1/payment-requests/${made[0].referenceId}/cancel`, undefined, { token: payee.token });
    const path = `/api/v1/users/${payee.referenceId}/payment-requests`;
    const first = await t.api.get(`${path}?size=2`, payee.token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ page: 0, size: 2, totalElements: 3, totalPages: 2, first: true, last: false });
    expect(first.body.content.map((r: { amount: number }) => r.amount)).toEqual([3, 2]);
    const next = await t.api.get(`${path}?size=2&cursor=${first.body.nextCursor}`, payee.token);
    expect(next.body).toMatchObject({ last: true, nextCursor: null });
    expect(next.body.content.map((r: { referenceId: string }) => r.referenceId)).toEqual([made[0].referenceId]);
    const cancelled = await t.api.get(`${path}?status=CANCELLED`, payee.token);
    expect(cancelled.body.content.map((r: { status: string }) => r.status)).toEqual(['CANCELLED']);
    expectProblem(await t.api.get(`${path}?status=LOST`, payee.token), 422, 'validation-failed');
    expectProblem(await t.api.get(path, other.token), 403, 'forbidden-operation');
  });

  it.each([
    ['an amount below 0.01', { amount: 0 }],
    ['an amount above 1000000.00', { amount: 1000000.01 }],
    ['an amount with 3 decimals', { amount: 1.005 }],
    ['an amount that is text', { amount: 'ten' }],
    ['an amount that is null', { amount: null }],
    ['an expiry below 60 s', { expiresInSeconds: 59 }],
    ['an expiry above 7 days', { expiresInSeconds: 604801 }],
    ['a note over 255 characters', { note: 'x'.repeat(256) }],
  ])('creating with %s is 422 and stores nothing', async (_name, body) => {
    const payee = await user(0);
    expectProblem(await createRequest(payee, body), 422, 'validation-failed');
    const stored = await db.query('SELECT 1 FROM payment_requests WHERE lower(payee_upi_id) = lower($1)', [
      payee.upiId,
    ]);
    expect(stored.rowCount).toBe(0);
  });

  it('answers bad input with problem+json: unknown id 404, a malformed id 400, no token 401, no key 400', async () => {
    const payer = await user(100);
    const unknown = '0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b';
    expectProblem(await read(unknown, payer.token), 404, 'payment-request-not-found');
    expectProblem(await pay(payer, unknown), 404, 'payment-request-not-found');
    expectProblem(await read('not-a-uuid', payer.token), 400, 'invalid-request');
    expectProblem(await t.api.get(`/api/v1/payment-requests/${unknown}`), 401, 'unauthorized');
    const payee = await user(0);
    const request = (await createRequest(payee, { amount: 1 })).body;
    expectProblem(
      await t.api.post(`/api/v1/payment-requests/${request.referenceId}/payments`, {}, { token: payer.token }),
      400,
      'idempotency-key-missing',
    );
    expectProblem(
      await t.api.request('POST', '/api/v1/payment-requests', {
        token: payee.token,
        rawBody: '{"amount":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid-request',
    );
    expect((await requestRow(request.referenceId)).status).toBe('OPEN');
  });

  it('works through the generated TypeScript client: create, read, pay, list, cancel', async () => {
    const [payee, payer] = await Promise.all([user(0), user(100)]);
    const asPayee = typedClient(t.api.baseUrl, payee.token);
    const asPayer = typedClient(t.api.baseUrl, payer.token);
    const created = await asPayee.POST('/api/v1/payment-requests', { body: { amount: 12.5, note: 'tea' } });
    expect(created.response.status).toBe(201);
    const referenceId = created.data!.referenceId;
    const seen = await asPayer.GET('/api/v1/payment-requests/{referenceId}', { params: { path: { referenceId } } });
    expect(seen.data).toMatchObject({ referenceId, status: 'OPEN' });
    // Compared as a value: a client that keeps money exact hands it back as decimal text.
    expect(Number(String(seen.data?.amount))).toBe(12.5);
    const paid = await asPayer.POST('/api/v1/payment-requests/{referenceId}/payments', {
      params: { path: { referenceId }, header: { 'Idempotency-Key': newIdempotencyKey() } },
      body: {},
    });
    expect(paid.response.status).toBe(201);
    expect(paid.data).toMatchObject({ paymentRequestReferenceId: referenceId });
    expect(Number(String(paid.data?.amount))).toBe(12.5);
    const listed = await asPayee.GET('/api/v1/users/{referenceId}/payment-requests', {
      params: { path: { referenceId: payee.referenceId }, query: { status: 'PAID' } },
    });
    expect(listed.data?.content.map((request) => request.referenceId)).toEqual([referenceId]);
    const cancel = await asPayee.POST('/api/v1/payment-requests/{referenceId}/cancel', {
      params: { path: { referenceId } },
    });
    expectProblem(asApiResponse(cancel), 409, 'payment-request-not-open');
  });

  it('the per-user rate limit applies to payers (429 with Retry-After), and a refused payment moves nothing', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_SECOND: '1' });
    try {
      const [payee, payer] = await Promise.all([user(0), user(100)]);
      const request = (await createRequest(payee, {})).body;
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          limited.api.post(
            `/api/v1/payment-requests/${request.referenceId}/payments`,
            { amount: 1 },
            { token: payer.token, headers: { 'idempotency-key': newIdempotencyKey() } },
          ),
        ),
      );
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      for (const answer of refused) {
        expectProblem(answer, 429, 'rate-limit-exceeded');
        expect(answer.headers.get('retry-after')).toBe('1');
      }
      const paid = answers.filter((answer) => answer.status === 201).length;
      expect(paid + refused.length + answers.filter((a) => a.status === 409).length).toBe(5);
      expect(await balanceOf(db, payer.upiId)).toBe(`${100 - paid}.0000`);
    } finally {
      await limited.close();
    }
  });
});
