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
      `SELECT response_status FROM idempotency_keys WHERE owner_upi_id = $1 AND request_hash = $2`,
      [second.upiId.toLowerCase(), hashOf(second, request)],
    );
    expect(refusedKey.rows[0].response_status).toBe(409);
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
