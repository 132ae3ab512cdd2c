import { newIdempotencyKey, uniqueUpiId } from '../support/api-client';
import { startTestApp, type TestApp } from '../support/test-app';

/** One series of the prometheus text, by exact label set; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/**
 * Movement metrics say what they count: payments_movements_total has a `kind` label from the
 * route's metadata (@MovementRoute), and payments_transfers_total counts transfers only.
 */
describe('movement metrics by kind', () => {
  let t: TestApp;
  const adminUpiId = uniqueUpiId('admin');
  beforeAll(async () => {
    t = await startTestApp({ ADMIN_UPI_IDS: adminUpiId, RATE_LIMIT_PER_SECOND: '1000' });
  });
  afterAll(() => t.close());

  it('counts transfers, reversals and deposits apart, and only transfers as transfers', async () => {
    const admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 100 }), t.api.registerUser()]);
    const scrape = async () => (await t.api.get('/actuator/prometheus')).text;
    const series = [
      'payments_movements_total{kind="transfer",outcome="201",replayed="false"}',
      'payments_movements_total{kind="reversal",outcome="201",replayed="false"}',
      'payments_movements_total{kind="reversal",outcome="201",replayed="true"}',
      'payments_movements_total{kind="deposit",outcome="201",replayed="false"}',
      'payments_movements_total{kind="deposit",outcome="404",replayed="false"}',
      'payments_transfers_total{outcome="201",replayed="false"}',
      'payments_movement_duration_seconds_count{kind="reversal",outcome="201"}',
    ];
    const before = await scrape();

    const transfer = await t.api.transfer(alice, bob.upiId, 10);
    expect(transfer.status).toBe(201);
    const reversalKey = newIdempotencyKey();
    const reverse = () =>
      t.api.post(
        `/api/v1/transactions/${transfer.body.referenceId}/reversals`,
        { amount: 4 },
        { token: bob.token, headers: { 'idempotency-key': reversalKey } },
      );
    expect((await reverse()).status).toBe(201);
    expect((await reverse()).headers.get('idempotent-replayed')).toBe('true');
    const deposit = (upiId: string) =>
      t.api.post(
        '/api/v1/admin/deposits',
        { upiId, amount: 5 },
        { token: admin.token, headers: { 'idempotency-key': newIdempotencyKey() } },
      );
    expect((await deposit(alice.upiId)).status).toBe(201);
    expect((await deposit(uniqueUpiId('nobody'))).status).toBe(404);

    const after = await scrape();
    expect(series.map((name) => sample(after, name) - sample(before, name))).toEqual([1, 1, 1, 1, 1, 1, 2]);
  });
});
