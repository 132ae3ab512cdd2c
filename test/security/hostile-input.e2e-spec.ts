import type { Client } from 'pg';
import { newIdempotencyKey, randomPhone, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { balanceOf, connectTestDatabase, countTransactionsBetween } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

/** Errors the HTTP layer raises itself, and text that would mislead or break the database. */
describe('hostile input', () => {
  let t: TestApp;
  let db: Client;
  let alice: RegisteredUser;
  let bob: RegisteredUser;

  beforeAll(async () => {
    t = await startTestApp();
    db = await connectTestDatabase();
    [alice, bob] = await Promise.all([t.api.registerUser(), t.api.registerUser()]);
  });
  afterAll(async () => {
    await t.close();
    await db.end();
  });

  const userCount = async (upiId: string) =>
    (await db.query('SELECT count(*)::int AS n FROM users WHERE lower(upi_id) = lower($1)', [upiId])).rows[0].n;
  const registration = (overrides: Record<string, unknown>) => ({
    name: 'Mallory',
    upiId: uniqueUpiId('hostile'),
    phoneNumber: randomPhone(),
    balance: 100,
    ...overrides,
  });

  /** No framework code (FST_*, HPE_*) or framework error wording reaches the client. */
  const expectNoFrameworkLeak = (text: string) => expect(text).not.toMatch(/FST_|HPE_|"code"|"error":/);

  describe('control characters', () => {
    it.each([
      ['NUL', 'Mal\u0000lory'],
      ['escape', 'Mal\u001blory'],
      ['C1', 'Mal\u0085lory'],
    ])('a %s character in a name is 422 naming the field, and no user is created', async (_label, name) => {
      const body = registration({ name });
      const response = await t.api.post('/api/v1/users', body);
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual({ name: 'must not contain control characters' });
      expect(await userCount(body.upiId as string)).toBe(0);
    });

    it('a NUL in a transfer note is 422 naming the field, and no money moves', async () => {
      const before = await balanceOf(db, alice.upiId);
      const response = await t.api.transfer(alice, bob.upiId, 5, { note: 'rent\u0000' });
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual({ note: 'must not contain control characters' });
      expect(await balanceOf(db, alice.upiId)).toBe(before);
      expect(await countTransactionsBetween(db, alice.upiId, bob.upiId)).toBe(0);
    });

    it('a NUL in a path or query parameter is 422 naming it', async () => {
      const inPath = await t.api.get(`/api/v1/users/upi/ali%00ce@okbank`, alice.token);
      expectProblem(inPath, 422, 'validation-failed');
      expect(inPath.body.errors).toEqual({ upiId: 'must not contain control characters' });
      const inQuery = await t.api.get(`/api/v1/users/${alice.referenceId}/ledger?page=0%00`, alice.token);
      expectProblem(inQuery, 422, 'validation-failed');
      expect(inQuery.body.errors).toEqual({ page: 'must not contain control characters' });
    });
  });

  describe('names that display as something else', () => {
    it.each([
      ['zero-width spaces only', '\u200b\u200b\u200b'],
      ['a Hangul filler', '\u3164'],
      ['a BOM and a word joiner', '\ufeff\u2060'],
      ['combining marks only', '\u0301\u0301'],
    ])('a name of %s is 422 and creates nothing', async (_label, name) => {
      const body = registration({ name });
      const response = await t.api.post('/api/v1/users', body);
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual({ name: 'name must contain visible characters' });
      expect(await userCount(body.upiId as string)).toBe(0);
    });

    it.each([
      ['a right-to-left override', 'Alice\u202eknab'],
      ['a left-to-right isolate', '\u2066Alice\u2069'],
    ])('a name carrying %s is 422 and creates nothing', async (_label, name) => {
      const body = registration({ name });
      const response = await t.api.post('/api/v1/users', body);
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual({
        name: 'name must not contain bidirectional override or isolate characters',
      });
      expect(await userCount(body.upiId as string)).toBe(0);
    });

    it('still accepts names in any script, with their marks', async () => {
      const response = await t.api.post('/api/v1/users', registration({ name: 'प्रिया Ñúñez 李' }));
      expect(response.status).toBe(201);
    });
  });

  describe('errors raised by the HTTP layer', () => {
    it('a URL that does not percent-decode is a 400 problem', async () => {
      const response = await t.api.get('/api/v1/users/upi/%E0%A4%A', alice.token);
      expectProblem(response, 400, 'invalid-request');
      expectNoFrameworkLeak(response.text);
    });

    it('an over-long path parameter is a 414 problem', async () => {
      const response = await t.api.get(`/api/v1/users/upi/${'9'.repeat(400)}`, alice.token);
      expectProblem(response, 414, 'uri-too-long');
      expectNoFrameworkLeak(response.text);
    });

    it('oversized request headers are a 431 problem', async () => {
      const response = await t.api.request('GET', '/api/v1/users', { headers: { 'x-padding': 'x'.repeat(60_000) } });
      expectProblem(response, 431, 'header-fields-too-large');
      expect(response.body.instance).toBe('/api/v1/users');
      expectNoFrameworkLeak(response.text);
    });

    it('a wrong method on an existing path is 405 with Allow', async () => {
      const response = await t.api.request('DELETE', '/api/v1/users', { token: alice.token });
      expectProblem(response, 405, 'method-not-allowed');
      expect(response.headers.get('allow')?.split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
      const parameterised = await t.api.request('PUT', `/api/v1/users/${alice.referenceId}`, { token: alice.token });
      expectProblem(parameterised, 405, 'method-not-allowed');
      expect(parameterised.headers.get('allow')).toContain('GET');
    });

    it('an unknown path stays 404', async () => {
      const response = await t.api.request('DELETE', '/api/v1/nowhere');
      expectProblem(response, 404, 'not-found');
    });

    it('a body in another media type is 415 naming application/json, and creates nothing', async () => {
      const body = registration({});
      const response = await t.api.request('POST', '/api/v1/users', {
        rawBody: JSON.stringify(body),
        headers: { 'content-type': 'text/plain' },
      });
      expectProblem(response, 415, 'unsupported-media-type');
      expect(response.body.detail).toContain('application/json');
      expectNoFrameworkLeak(response.text);
      expect(await userCount(body.upiId as string)).toBe(0);
    });

    it('an oversized body is a 413 problem without framework codes, and creates nothing', async () => {
      const body = registration({ name: 'x'.repeat(200_000) });
      const response = await t.api.post('/api/v1/users', body);
      expectProblem(response, 413, 'payload-too-large');
      expectNoFrameworkLeak(response.text);
      expect(await userCount(body.upiId as string)).toBe(0);
    });
  });

  describe('a fault inside body parsing', () => {
    it('is a 500 (logged as ours), never "not valid JSON"', async () => {
      // What Node 20 does: the reviver gets no context, so reading context.source throws a TypeError.
      type Reviver = (key: string, value: unknown) => unknown;
      const parse = JSON.parse.bind(JSON) as (text: string, reviver?: Reviver) => unknown;
      const withoutContext = (text: string, reviver?: Reviver) =>
        parse(text, reviver && ((key: string, value: unknown) => reviver(key, value)));
      const spy = jest.spyOn(JSON, 'parse').mockImplementation(withoutContext as typeof JSON.parse);
      const body = registration({});
      let response;
      try {
        response = await t.api.request('POST', '/api/v1/users', { rawBody: JSON.stringify(body) });
      } finally {
        spy.mockRestore();
      }
      expectProblem(response, 500, 'internal-error');
      expect(response.body.detail).not.toMatch(/JSON/);
      expect(await userCount(body.upiId as string)).toBe(0);
    });
  });

  it('a transfer with a fresh key after all this still works', async () => {
    const response = await t.api.transfer(alice, bob.upiId, 1, { key: newIdempotencyKey() });
    expect(response.status).toBe(201);
  });
});
