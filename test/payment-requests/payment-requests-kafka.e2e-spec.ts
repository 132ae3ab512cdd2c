import { randomUUID } from 'node:crypto';
import { newIdempotencyKey } from '../support/api-client';
import { withScratchDatabase } from '../support/db';
import { TestBroker, TopicReader } from '../support/kafka';
import { startTestApp } from '../support/test-app';

/** The TransferCompleted event of a payment, as a consumer reads it from a real Apache Kafka broker. */
describe('payment request events on Kafka', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await TestBroker.start();
  }, 240_000);
  afterAll(() => broker.dispose());

  it('a payment carries paymentRequestReferenceId; a plain transfer does not have the key', async () => {
    await withScratchDatabase(async (url) => {
      const topic = `payment-requests-${randomUUID()}`;
      const t = await startTestApp({ DATABASE_URL: url, KAFKA_BROKERS: broker.brokers, KAFKA_TOPIC: topic });
      let reader: TopicReader | undefined;
      try {
        const [payee, payer] = await Promise.all([t.api.registerUser({ balance: 0 }), t.api.registerUser()]);
        const request = await t.api.post('/api/v1/payment-requests', { amount: 75 }, { token: payee.token });
        const paid = await t.api.post(
          `/api/v1/payment-requests/${request.body.referenceId}/payments`,
          {},
          { token: payer.token, headers: { 'idempotency-key': newIdempotencyKey() } },
        );
        expect(paid.status).toBe(201);
        const plain = await t.api.transfer(payer, payee.upiId, 1);
        expect(plain.status).toBe(201);
        reader = await TopicReader.open(broker.brokers, topic);
        await reader.waitFor((all) => all.length >= 2, 60_000);
        const [payment] = reader.for(paid.body.referenceId);
        expect(payment.value).toEqual({
          eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          eventType: 'TransferCompleted',
          occurredAt: paid.body.createdAt,
          transactionId: paid.body.transactionId,
          transactionReferenceId: paid.body.referenceId,
          senderUpiId: payer.upiId,
          receiverUpiId: payee.upiId,
          amount: '75.0000',
          currency: 'INR',
          note: null,
          paymentRequestReferenceId: request.body.referenceId,
        });
        expect(Object.keys(reader.for(plain.body.referenceId)[0].value)).not.toContain('paymentRequestReferenceId');
      } finally {
        await reader?.close().catch(() => undefined);
        await t.close();
      }
    });
  }, 180_000);
});
