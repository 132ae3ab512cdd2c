import { loadConfig } from '../config/app-config';
import { OutcomeRenderer } from '../movements/outcome-renderer';

const renderer = new OutcomeRenderer(
  loadConfig({ JWT_SECRET: 'unit-test-secret-of-at-least-32-bytes!!', ERRORS_BASE_URL: 'https://errors.test' }),
);
const fixed = { at: '2026-11-24T10:00:00.123Z', requestId: 'req-1', instance: '/api/v1/transactions' };

describe('limit and freeze outcomes as problems', () => {
  it('renders limit-exceeded with the limit member: amounts as 4-decimal numbers, the same bytes on replay', () => {
    const outcome = {
      code: 'limit-exceeded',
      ...fixed,
      data: {
        limit: { name: 'daily-amount', max: '100000.0000', used: '65000.0000', remaining: '35000.0000', resetsAt: 'T' },
      },
    };
    const first = renderer.render({ outcome, replayed: false });
    expect(first.status).toBe(422);
    expect(first.body).toContain(
      '"limit":{"name":"daily-amount","max":100000.0000,"used":65000.0000,"remaining":35000.0000,"resetsAt":"T"}',
    );
    expect(JSON.parse(first.body)).toMatchObject({
      type: 'https://errors.test/limit-exceeded',
      detail: expect.stringMatching(/daily amount limit of 100000\.0000/),
      requestId: 'req-1',
    });
    expect(renderer.render({ outcome, replayed: true }).body).toBe(first.body);
  });

  it('renders counts as integers and account-frozen naming the side', () => {
    const count = renderer.render({
      outcome: {
        code: 'limit-exceeded',
        ...fixed,
        data: { limit: { name: 'daily-count', max: '20', used: '20', remaining: '0', resetsAt: 'T' } },
      },
      replayed: false,
    });
    expect(count.body).toContain('"max":20,"used":20,"remaining":0');
    const frozen = renderer.render({
      outcome: { code: 'account-frozen', ...fixed, data: { side: 'receiver' } },
      replayed: false,
    });
    expect([frozen.status, JSON.parse(frozen.body).detail]).toEqual([
      422,
      expect.stringMatching(/^The receiver's account is frozen/),
    ]);
  });
});
