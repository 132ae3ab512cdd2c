import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { loadConfig } from '../config/app-config';
import type { StoredOutcome } from '../idempotency/stored-outcome';
import { transactionResource } from '../transactions/transaction-resource';
import { OutcomeRenderer } from './outcome-renderer';

const renderer = new OutcomeRenderer(
  loadConfig({ JWT_SECRET: 'unit-test-secret-of-at-least-32-bytes!!', ERRORS_BASE_URL: 'https://errors.test' }),
);
const fixed = { at: '2026-11-22T10:00:00.123Z', requestId: 'req-1', instance: '/api/v1/transactions' };

describe('OutcomeRenderer', () => {
  it('renders completed as the 201 Transaction body with exact numbers, and Location', () => {
    const outcome: StoredOutcome = {
      code: 'completed',
      ...fixed,
      data: {
        transactionId: '9007199254740993',
        referenceId: 'c0ffee00-0000-4000-8000-000000000001',
        senderUpiId: 'alice@okbank',
        receiverUpiId: 'bob@okbank',
        amount: '1234567890123.4567',
        note: null,
        createdAt: fixed.at,
      },
    };
    const answer = renderer.render({ outcome, replayed: true }, transactionResource);
    expect(answer).toEqual({
      status: 201,
      contentType: 'application/json; charset=utf-8',
      headers: { Location: '/api/v1/transactions/c0ffee00-0000-4000-8000-000000000001' },
      replayed: true,
      referenceId: 'c0ffee00-0000-4000-8000-000000000001',
      body:
        '{"transactionId":9007199254740993,"referenceId":"c0ffee00-0000-4000-8000-000000000001",' +
        '"senderUpiId":"alice@okbank","receiverUpiId":"bob@okbank","amount":1234567890123.4567,' +
        '"status":"COMPLETED","type":"TRANSFER","note":null,"createdAt":"2026-11-22T10:00:00.123Z"}',
    });
  });

  it.each([
    ['self-transfer', {}, 400, 'Self Transfer Not Allowed', 'Sender and receiver must be different accounts'],
    ['user-not-found', { upiId: 'ghost@okbank' }, 404, 'User Not Found', 'No user with UPI ID ghost@okbank'],
    [
      'insufficient-balance',
      { available: '50.0000', required: '50.0001' },
      422,
      'Insufficient Balance',
      'Available balance 50.0000 is less than the required amount 50.0001',
    ],
  ])('renders %s as a problem fixed by the stored time, request id and path', (code, data, status, title, detail) => {
    const answer = renderer.render({ outcome: { code, data, ...fixed }, replayed: false });
    expect(answer.status).toBe(status);
    expect(answer.contentType).toBe('application/problem+json; charset=utf-8');
    // What the metrics and the request log line read instead of parsing the body back.
    expect(answer.problemType).toBe(code);
    expect(answer.body).toBe(
      JSON.stringify({
        type: `https://errors.test/${code}`,
        title,
        status,
        detail,
        instance: fixed.instance,
        timestamp: fixed.at,
        requestId: fixed.requestId,
      }),
    );
  });

  it('answers key-reused with a fresh 400 problem rather than a stored answer', () => {
    const render = () => renderer.render({ outcome: { code: 'key-reused' }, replayed: false });
    expect(render).toThrow(ApiError);
    expect(render).toThrow(expect.objectContaining({ code: ErrorCode.IdempotencyKeyReused }));
  });

  it('refuses a code it does not know instead of guessing', () => {
    expect(() => renderer.render({ outcome: { code: 'mystery' }, replayed: false })).toThrow(/mystery/);
  });
});
