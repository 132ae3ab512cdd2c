import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { requestHash } from '../../src/idempotency/idempotency-key';
import { connectTestDatabase } from '../support/db';
import { type MediumUser, newUser } from './support/factories';

/** The payment-request hook of the transfer functions, against the run's PostgreSQL, without HTTP. */
describe('paying a payment request through transfer_funds_batch and transfer_funds', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  async function newRequest(payee: MediumUser, amount: string, expiresIn = '15 minutes'): Promise<string> {
    const referenceId = randomUUID();
    await db.query(
      `INSERT INTO payment_requests (reference_id, payee_id, payee_upi_id, payee_name, amount, expires_at)
       VALUES ($1, $2, $3, 'Medium Payee', $4, clock_timestamp() + $5::interval)`,
      [referenceId, payee.id, payee.upiId, amount, expiresIn],
    );
    return referenceId;
  }

  const context = (paymentRequestReferenceId: string) => ({
    requestId: 'medium',
    instance: '/medium',
    paymentRequestReferenceId,
  });
  const hashOf = (payer: MediumUser, request: string) =>
    requestHash({ senderUpiId: payer.upiId.toLowerCase(), paymentRequestReferenceId: request });

  it('two items paying one request in one batch: the first completes and marks it PAID, the second is refused', async () => {
    const [payee, first, second] = [await newUser(db, '0'), await newUser(db, '100'), await newUser(db, '100')];
    const request = await newRequest(payee, '40.0000');
    const payers = [first, second];
    const references = [randomUUID(), randomUUID()];
    const { rows } = await db.query(
      `SELECT result, replayed FROM transfer_funds_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        payers.map((p) => p.upiId.toLowerCase()),
        [randomUUID(), randomUUID()],
        payers.map((p) => hashOf(p, request)),
        payers.map((p) => p.upiId),
        [payee.upiId, payee.upiId],
        ['40.0000', '40.0000'],
        [null, null],
        references,
        [randomUUID(), randomUUID()],
        [context(request), context(request)],
      ],
    );
    expect(rows.map((row) => row.result.code)).toEqual(['completed', 'payment-request-not-open']);
    expect(rows[0].result.paymentRequestReferenceId).toBe(request);
    expect(rows[1].result.data).toEqual({ referenceId: request, status: 'PAID' });
    const balances = await db.query(`SELECT upi_id, balance::text FROM users WHERE id = ANY ($1) ORDER BY id`, [
      [payee.id, first.id, second.id],
    ]);
    expect(Object.fromEntries(balances.rows.map((r) => [r.upi_id, r.balance]))).toEqual({
      [payee.upiId]: '40.0000',
      [first.upiId]: '60.0000',
      [second.upiId]: '100.0000',
    });
    const stored = await db.query(
      `SELECT status, transaction_reference_id FROM payment_requests WHERE reference_id = $1`,
      [request],
    );
    expect(stored.rows[0]).toEqual({ status: 'PAID', transaction_reference_id: references[0] });
    const event = await db.query(`SELECT payload FROM outbox_events WHERE payload::jsonb @> $1`, [
      JSON.stringify({ transactionReferenceId: references[0] }),
    ]);
    expect(JSON.parse(event.rows[0].payload).paymentRequestReferenceId).toBe(request);
    const refusedKey = await db.query(
      `SELECT response_status FROM idempotency_keys WHERE owner_upi_id = $1 AND request_hash = decode($2, 'hex')`,
      [second.upiId.toLowerCase(), hashOf(second, request)],
    );
    expect(refusedKey.rows[0].response_status).toBe(409);
  });

  type Payment = { payer: MediumUser; payee: MediumUser; request: string; amount: string; reference?: string };
  type Outcome = { result: { code: string; data: Record<string, string> }; replayed: boolean };
  const payAlone = async ({ payer, payee, request, amount, reference = randomUUID() }: Payment): Promise<Outcome> =>
    (
      await db.query(
        `SELECT result, replayed FROM transfer_funds(lower($1), $2, $3, $1, $4, $5, NULL, $6, gen_random_uuid(), $7)`,
        [payer.upiId, randomUUID(), hashOf(payer, request), payee.upiId, amount, reference, context(request)],
      )
    ).rows[0];
  const payInBatch = async (payments: Payment[]): Promise<Outcome[]> =>
    (
      await db.query(`SELECT result, replayed FROM transfer_funds_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
        payments.map((p) => p.payer.upiId.toLowerCase()),
        payments.map(() => randomUUID()),
        payments.map((p) => hashOf(p.payer, p.request)),
        payments.map((p) => p.payer.upiId),
        payments.map((p) => p.payee.upiId),
        payments.map((p) => p.amount),
        payments.map(() => null),
        payments.map((p) => p.reference ?? randomUUID()),
        payments.map(() => randomUUID()),
        payments.map((p) => context(p.request)),
      ])
    ).rows;
  const requestRow = async (request: string) =>
    (
      await db.query<{ status: string; transaction_reference_id: string | null }>(
        `SELECT status, transaction_reference_id FROM payment_requests WHERE reference_id = $1`,
        [request],
      )
    ).rows[0];
  const balanceOf = async (user: MediumUser) =>
    (await db.query<{ b: string }>(`SELECT balance::text AS b FROM users WHERE id = $1`, [user.id])).rows[0].b;

  // The request's state decides before the balance: a payer short of money learns that the request
  // is no longer payable (409), not that a deposit would help (422), alone and in a batch alike.
  it.each(['PAID', 'CANCELLED'])(
    'refuses a payment of a %s request as payment-request-not-open whatever the balance, alone and in a batch',
    async (status) => {
      const [payee, first, poor] = [await newUser(db, '0'), await newUser(db, '100'), await newUser(db, '1')];
      const request = await newRequest(payee, '40.0000');
      if (status === 'PAID') {
        expect((await payAlone({ payer: first, payee, request, amount: '40.0000' })).result.code).toBe('completed');
      } else {
        await db.query(`UPDATE payment_requests SET status = 'CANCELLED' WHERE reference_id = $1`, [request]);
      }
      const alone = await payAlone({ payer: poor, payee, request, amount: '40.0000' });
      const [batched, neighbour] = await payInBatch([
        { payer: poor, payee, request, amount: '40.0000' },
        { payer: first, payee, request: await newRequest(payee, '1.0000'), amount: '1.0000' },
      ]);
      for (const refused of [alone, batched]) {
        expect(refused.result).toMatchObject({
          code: 'payment-request-not-open',
          data: { referenceId: request, status },
        });
      }
      expect(neighbour.result.code).toBe('completed');
      expect(await balanceOf(poor)).toBe('1.0000');
      const stored = await db.query(`SELECT response_status FROM idempotency_keys WHERE owner_upi_id = lower($1)`, [
        poor.upiId,
      ]);
      expect(stored.rows).toEqual([{ response_status: 409 }, { response_status: 409 }]);
    },
  );

  it('a payment refused for its balance leaves the request OPEN, alone and in a batch whose next item pays it', async () => {
    const [payee, poor, rich] = [await newUser(db, '0'), await newUser(db, '10'), await newUser(db, '100')];
    const request = await newRequest(payee, '40.0000');
    const alone = await payAlone({ payer: poor, payee, request, amount: '40.0000' });
    expect(alone.result).toMatchObject({ code: 'insufficient-balance', data: { available: '10.0000' } });
    expect(await requestRow(request)).toEqual({ status: 'OPEN', transaction_reference_id: null });

    const paid = randomUUID();
    const rows = await payInBatch([
      { payer: poor, payee, request, amount: '40.0000' },
      { payer: rich, payee, request, amount: '40.0000', reference: paid },
    ]);
    expect(rows.map((row) => row.result.code)).toEqual(['insufficient-balance', 'completed']);
    // PAID by the transaction that was written, and by no other.
    expect(await requestRow(request)).toEqual({ status: 'PAID', transaction_reference_id: paid });
    const written = await db.query(`SELECT count(*)::int AS n FROM transactions WHERE reference_id = $1`, [paid]);
    expect(written.rows[0].n).toBe(1);
    expect([await balanceOf(poor), await balanceOf(rich), await balanceOf(payee)]).toEqual([
      '10.0000',
      '60.0000',
      '40.0000',
    ]);
  });

  it('transfer_funds refuses an expired request (EXPIRED) and moves nothing', async () => {
    const [payee, payer] = [await newUser(db, '0'), await newUser(db, '100')];
    const request = await newRequest(payee, '10.0000', '-1 second');
    const { rows } = await db.query(
      `SELECT result FROM transfer_funds(lower($1), $2, $3, $1, $4, 10, NULL, gen_random_uuid(), gen_random_uuid(), $5)`,
      [payer.upiId, randomUUID(), hashOf(payer, request), payee.upiId, context(request)],
    );
    expect(rows[0].result).toMatchObject({ code: 'payment-request-not-open', data: { status: 'EXPIRED' } });
    const balance = await db.query(`SELECT balance::text FROM users WHERE id = $1`, [payer.id]);
    expect(balance.rows[0].balance).toBe('100.0000');
  });
});
