import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

describe('reading transactions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' });
  });
  afterAll(() => t.close());

  const trio = () =>
    Promise.all([
      t.api.registerUser({ balance: 1000 }),
      t.api.registerUser({ balance: 1000 }),
      t.api.registerUser({ balance: 1000 }),
    ]);

  describe('GET /api/v1/transactions/{id}', () => {
    it('shows the transaction to the sender and to the receiver, exactly as created', async () => {
      const [alice, bob] = await trio();
      const created = await t.api.transfer(alice, bob.upiId, '12.5', { note: 'chai' });
      for (const reader of [alice, bob]) {
        const response = await t.api.get(`/api/v1/transactions/${created.body.referenceId}`, reader.token);
        expect(response.status).toBe(200);
        expect(response.body).toEqual(created.body);
        expect(response.text).toContain('"amount":12.5000');
      }
    });

    it('answers 403 forbidden-operation to anyone else', async () => {
      const [alice, bob, eve] = await trio();
      const created = await t.api.transfer(alice, bob.upiId, 1);
      expectProblem(
        await t.api.get(`/api/v1/transactions/${created.body.referenceId}`, eve.token),
        403,
        'forbidden-operation',
      );
    });

    it('answers 404 for an unknown reference ID', async () => {
      const [alice] = await trio();
      const response = await t.api.get('/api/v1/transactions/3b241101-e2bb-4255-8caf-4136c566a962', alice.token);
      expectProblem(response, 404, 'transaction-not-found');
    });

    it('answers 400 for an id that is not a UUID', async () => {
      const [alice] = await trio();
      expectProblem(await t.api.get('/api/v1/transactions/42', alice.token), 400, 'invalid-request');
    });

    it('answers 401 without a token', async () => {
      const [alice, bob] = await trio();
      const created = await t.api.transfer(alice, bob.upiId, 1);
      expectProblem(await t.api.get(`/api/v1/transactions/${created.body.referenceId}`), 401);
    });
  });

  describe('GET /api/v1/transactions/user/{upiId}', () => {
    it('lists sent and received transactions, newest first, in the page envelope', async () => {
      const [alice, bob, carol] = await trio();
      const sent = await t.api.transfer(alice, bob.upiId, 10);
      const received = await t.api.transfer(carol, alice.upiId, 30);
      const unrelated = await t.api.transfer(bob, carol.upiId, 5);
      expect([sent.status, received.status, unrelated.status]).toEqual([201, 201, 201]);

      const response = await t.api.get(`/api/v1/transactions/user/${alice.upiId}`, alice.token);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        content: [received.body, sent.body],
        page: 0,
        size: 10,
        totalElements: 2,
        totalPages: 1,
        first: true,
        last: true,
        nextCursor: null,
      });
    });

    it('sorts by amount, largest first, and pages', async () => {
      const [alice, bob] = await trio();
      for (const amount of [5, 50, 20]) expect((await t.api.transfer(alice, bob.upiId, amount)).status).toBe(201);
      const first = await t.api.get(`/api/v1/transactions/user/${alice.upiId}?sortBy=amount&size=2`, alice.token);
      expect(first.body.content.map((tx: { amount: number }) => tx.amount)).toEqual([50, 20]);
      expect(first.body).toEqual(
        expect.objectContaining({ totalElements: 3, totalPages: 2, first: true, last: false }),
      );
      const second = await t.api.get(
        `/api/v1/transactions/user/${alice.upiId}?sortBy=amount&size=2&page=1`,
        alice.token,
      );
      expect(second.body.content.map((tx: { amount: number }) => tx.amount)).toEqual([5]);
      expect(second.body.last).toBe(true);
    });

    it('accepts the UPI ID in any case', async () => {
      const [alice, bob] = await trio();
      await t.api.transfer(alice, bob.upiId, 1);
      const response = await t.api.get(`/api/v1/transactions/user/${alice.upiId.toUpperCase()}`, alice.token);
      expect(response.body.totalElements).toBe(1);
    });

    it("answers 403 for another user's list", async () => {
      const [alice, bob] = await trio();
      await t.api.transfer(alice, bob.upiId, 1);
      expectProblem(await t.api.get(`/api/v1/transactions/user/${alice.upiId}`, bob.token), 403, 'forbidden-operation');
    });

    it('answers 401 without a token', async () => {
      const [alice] = await trio();
      expectProblem(await t.api.get(`/api/v1/transactions/user/${alice.upiId}`), 401);
    });

    it.each([
      ['sortBy=note', 'sortBy'],
      ['size=0', 'size'],
      ['size=101', 'size'],
      ['page=-1', 'page'],
    ])('answers 422 for %s', async (query, field) => {
      const [alice] = await trio();
      const response = await t.api.get(`/api/v1/transactions/user/${alice.upiId}?${query}`, alice.token);
      expectProblem(response, 422);
      expect(response.body.errors).toEqual({ [field]: expect.any(String) });
    });
  });
});
