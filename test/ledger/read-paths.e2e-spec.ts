import { newIdempotencyKey, type RegisteredUser } from '../support/api-client';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The offset pages of the ledger and of the transaction list are read in one statement of their
 * own; the single-transaction read and the cursor pages still go through the entities. Both
 * must write the same bytes for the same rows.
 */
describe('history reads: offset pages and the entity reads agree byte for byte', () => {
  let t: TestApp;
  let alice: RegisteredUser;
  let bob: RegisteredUser;

  /** The text of a page's content array. */
  const contentText = (text: string) => /"content":(\[.*?\])/.exec(text)?.[1];

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
    [alice, bob] = await Promise.all([t.api.registerUser({ balance: '1000.25' }), t.api.registerUser({ balance: 10 })]);
    const carol = await t.api.registerUser({ balance: 0 });
    const paid = await t.api.transfer(alice, bob.upiId, '100.5', { note: 'a "quoted", note' });
    await t.api.transfer(bob, alice.upiId, '20');
    await t.api.transfer(alice, carol.upiId, '0.01');
    const reversal = await t.api.post(
      `/api/v1/transactions/${paid.body.referenceId}/reversals`,
      { amount: '40.25', note: 'returned' },
      { token: bob.token, headers: { 'idempotency-key': newIdempotencyKey() } },
    );
    expect(reversal.status).toBe(201);
  });
  afterAll(() => t.close());

  it.each(['createdAt', 'amount'])(
    'lists each transaction as GET /transactions/{id} writes it (sortBy=%s)',
    async (sortBy) => {
      for (const user of [alice, bob]) {
        const list = await t.api.get(`/api/v1/transactions/user/${user.upiId}?size=100&sortBy=${sortBy}`, user.token);
        expect(list.status).toBe(200);
        expect(list.body.totalElements).toBe(list.body.content.length);
        const bodies = await Promise.all(
          (list.body.content as { referenceId: string }[]).map(
            async (item) => (await t.api.get(`/api/v1/transactions/${item.referenceId}`, user.token)).text,
          ),
        );
        expect(contentText(list.text)).toBe(`[${bodies.join(',')}]`);
      }
      const aliceList = await t.api.get(`/api/v1/transactions/user/${alice.upiId}?size=100`, alice.token);
      expect(aliceList.text).toContain('"reversedAmount":40.2500');
      expect(aliceList.text).toContain('"originalReferenceId":"');
    },
  );

  it('continues an offset ledger page with cursor pages that write the same entries', async () => {
    const ledgerPath = `/api/v1/users/${alice.referenceId}/ledger`;
    const whole = await t.api.get(`${ledgerPath}?size=100`, alice.token);
    const first = await t.api.get(`${ledgerPath}?size=1`, alice.token);
    expect(first.body.totalElements).toBe(whole.body.content.length);
    const rest = await t.api.get(`${ledgerPath}?size=100&cursor=${first.body.nextCursor}`, alice.token);
    expect(rest.status).toBe(200);
    const [head, tail] = [contentText(first.text)!, contentText(rest.text)!];
    expect(`${head.slice(0, -1)},${tail.slice(1)}`).toBe(contentText(whole.text));
    expect(whole.text).toContain('"balanceBefore":1000.2500');
  });

  it('answers an empty offset page for an account without entries, with the envelope', async () => {
    const newcomer = await t.api.registerUser({ balance: 0 });
    const ledger = await t.api.get(`/api/v1/users/${newcomer.referenceId}/ledger?page=0&size=20`, newcomer.token);
    expect(ledger.text).toBe(
      '{"content":[],"page":0,"size":20,"totalElements":0,"totalPages":0,"first":true,"last":true,"nextCursor":null}',
    );
    const list = await t.api.get(`/api/v1/transactions/user/${newcomer.upiId}?page=0&size=20`, newcomer.token);
    expect(list.text).toBe(
      '{"content":[],"page":0,"size":20,"totalElements":0,"totalPages":0,"first":true,"last":true,"nextCursor":null}',
    );
  });
});
