import { randomUUID } from 'node:crypto';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

describe('errors and request ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ERRORS_BASE_URL: 'https://errors.example.test/' });
  });
  afterAll(() => t.close());

  it('answers an unknown route with a 404 problem', async () => {
    const response = await t.api.get('/api/v1/nothing-here');
    expectProblem(response, 404);
    expect(response.body.instance).toBe('/api/v1/nothing-here');
  });

  it('builds the type from ERRORS_BASE_URL and the slug', async () => {
    const response = await t.api.post('/api/v1/auth/login', { upiId: 'nobody@nowhere' });
    expectProblem(response, 401);
    expect(response.body.type).toBe('https://errors.example.test/unauthorized');
  });

  it('puts a request id on successful responses too', async () => {
    const response = await t.api.post('/api/v1/users', {
      name: 'R',
      upiId: `req.${randomUUID().slice(0, 8)}@okbank`,
      phoneNumber: '9876543210',
      balance: 1,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reuses a valid incoming X-Request-Id and replaces an invalid one', async () => {
    const requestId = randomUUID();
    const reused = await t.api.request('GET', '/api/v1/users', { headers: { 'x-request-id': requestId } });
    expectProblem(reused, 401);
    expect(reused.body.requestId).toBe(requestId);
    const replaced = await t.api.request('GET', '/api/v1/users', {
      headers: { 'x-request-id': 'not a uuid; drop table' },
    });
    expectProblem(replaced, 401);
    expect(replaced.body.requestId).not.toBe('not a uuid; drop table');
  });

  it('answers 400 for malformed JSON with the problem shape', async () => {
    const response = await t.api.request('POST', '/api/v1/users', { rawBody: '{"name": tru' });
    expectProblem(response, 400, 'invalid-request');
  });

  it('answers 413 for an oversized body', async () => {
    const response = await t.api.request('POST', '/api/v1/users', { rawBody: `{"name":"${'x'.repeat(2_000_000)}"}` });
    expectProblem(response, 413);
  });
});
