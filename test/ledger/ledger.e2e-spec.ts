import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';
import { asApiResponse, rawText, typedClient } from '../support/typed-client';

// Through the generated client (clients/typescript): a change of the document breaks these calls at compile time.
describe('GET /api/v1/users/{id}/ledger', () => {
  let t: TestApp;
  const LEDGER = '/api/v1/users/{id}/ledger';
  const ledgerOf = (id: string, token?: string, query: { page?: number; size?: number } = {}) =>
    typedClient(t.api.baseUrl, token).GET(LEDGER, { params: { path: { id }, query } });

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('lists DEBIT and CREDIT entries newest first, with balances before and after', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 500 }), t.api.registerUser({ balance: 0 })]);
    const first = await t.api.transfer(alice, bob.upiId, '120.5');
    const second = await t.api.transfer(bob, alice.upiId, 20);
    expect([first.status, second.status]).toEqual([201, 201]);

    const ledger = await ledgerOf(alice.referenceId, alice.token);
    expect(ledger.response.status).toBe(200);
    expect(ledger.data).toEqual({
      content: [
        expect.objectContaining({
          entryType: 'CREDIT',
          amount: '20.0000',
          balanceBefore: '379.5000',
          balanceAfter: '399.5000',
        }),
        expect.objectContaining({
          entryType: 'DEBIT',
          amount: '120.5000',
          balanceBefore: '500.0000',
          balanceAfter: '379.5000',
        }),
        expect.objectContaining({
          entryType: 'CREDIT',
          amount: '500.0000',
          balanceBefore: '0.0000',
          balanceAfter: '500.0000',
        }),
      ],
      page: 0,
      size: 10,
      totalElements: 3,
      totalPages: 1,
      first: true,
      last: true,
      nextCursor: null,
    });
    const [credit, debit] = ledger.data!.content;
    expect(credit).toEqual({
      ledgerId: expect.any(Number),
      userReferenceId: alice.referenceId,
      transactionReferenceId: second.body.referenceId,
      entryType: 'CREDIT',
      amount: '20.0000',
      balanceBefore: '379.5000',
      balanceAfter: '399.5000',
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(debit.transactionReferenceId).toBe(first.body.referenceId);
    expect(rawText(ledger.response)).toContain('"balanceAfter":379.5000');
  });

  it('keeps balance = credits - debits for the user', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 300 }), t.api.registerUser({ balance: 50 })]);
    for (const amount of ['10.1', '0.01', '99.99'])
      expect((await t.api.transfer(alice, bob.upiId, amount)).status).toBe(201);
    const ledger = await ledgerOf(alice.referenceId, alice.token, { size: 100 });
    // The client reads money as the service's decimal text: sum it in ten-thousandths, exactly.
    const units = (amount: string) => BigInt(amount.replace('.', ''));
    const total = ledger.data!.content.reduce(
      (sum, e) => sum + (e.entryType === 'CREDIT' ? 1n : -1n) * units(e.amount),
      0n,
    );
    const profile = await typedClient(t.api.baseUrl, alice.token).GET('/api/v1/users/{id}', {
      params: { path: { id: alice.referenceId } },
    });
    expect(total).toBe(units(profile.data!.balance));
    expect(rawText(profile.response)).toContain('"balance":189.9000');
  });

  it('pages through the entries', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 100 }), t.api.registerUser({ balance: 0 })]);
    for (let i = 0; i < 4; i += 1) expect((await t.api.transfer(alice, bob.upiId, 1)).status).toBe(201);
    const page = await ledgerOf(alice.referenceId, alice.token, { page: 1, size: 2 });
    expect(page.data).toEqual(
      expect.objectContaining({ page: 1, size: 2, totalElements: 5, totalPages: 3, first: false, last: false }),
    );
    expect(page.data!.content.map((e) => e.balanceAfter)).toEqual(['98.0000', '99.0000']);
    const beyond = await ledgerOf(alice.referenceId, alice.token, { page: 9, size: 2 });
    expect(beyond.data).toEqual(expect.objectContaining({ content: [], page: 9, last: true }));
  });

  it("answers 403 for another user's ledger", async () => {
    const [me, other] = await Promise.all([t.api.registerUser(), t.api.registerUser()]);
    expectProblem(asApiResponse(await ledgerOf(other.referenceId, me.token)), 403, 'forbidden-operation');
  });

  it('answers 404 for an unknown user', async () => {
    const me = await t.api.registerUser();
    const response = await ledgerOf('6f1c1a4e-0000-4000-8000-000000000000', me.token);
    expectProblem(asApiResponse(response), 404, 'user-not-found');
  });

  it('answers 400 for an id that is not a UUID', async () => {
    const me = await t.api.registerUser();
    expectProblem(asApiResponse(await ledgerOf('not-a-uuid', me.token)), 400);
  });

  it('answers 401 without a token', async () => {
    const me = await t.api.registerUser();
    expectProblem(asApiResponse(await ledgerOf(me.referenceId)), 401);
  });

  it.each([{ size: 0 }, { size: 101 }, { page: -1 }])('answers 422 for the paging violation %j', async (query) => {
    const me = await t.api.registerUser();
    expectProblem(asApiResponse(await ledgerOf(me.referenceId, me.token, query)), 422);
  });
});
