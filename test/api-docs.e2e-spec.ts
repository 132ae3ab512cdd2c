import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestApp, type TestApp } from './support/test-app';

/** Every operation of the spec, with the error statuses it lists (plus those docs/decisions.md adds). */
const SPEC_OPERATIONS: [method: string, path: string, errors: number[]][] = [
  ['post', '/api/v1/auth/login', [401, 422]],
  ['post', '/api/v1/users', [409, 422]],
  ['get', '/api/v1/users', [401, 403, 422]],
  ['get', '/api/v1/users/{id}', [401, 403, 404]],
  ['get', '/api/v1/users/upi/{upiId}', [401, 403, 404]],
  ['get', '/api/v1/users/{id}/ledger', [401, 403, 404]],
  ['get', '/api/v1/users/balance/{amount}', [400, 401, 403]],
  ['post', '/api/v1/transactions', [400, 401, 403, 404, 409, 422, 429, 503]],
  ['get', '/api/v1/transactions/{id}', [401, 403, 404]],
  ['get', '/api/v1/transactions/user/{upiId}', [401, 403]],
  ['post', '/api/v1/transactions/{id}/insights', [403, 404, 503]],
  ['get', '/actuator/health', []],
  ['get', '/actuator/health/liveness', []],
  ['get', '/actuator/health/readiness', []],
  ['get', '/actuator/info', []],
  ['get', '/actuator/metrics', []],
];

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: any;
  beforeAll(async () => {
    t = await startTestApp();
    const response = await t.api.get('/v3/api-docs');
    expect(response.status).toBe(200);
    document = response.body;
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.0 document', async () => {
    expect(document.openapi).toMatch(/^3\.0\.\d+$/);
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it.each(SPEC_OPERATIONS)('documents %s %s with its success and error responses', (method, path, errors) => {
    const operation = document.paths[path]?.[method];
    expect(operation).toBeDefined();
    const statuses = Object.keys(operation.responses).map(Number);
    expect(statuses.some((status) => status >= 200 && status < 300)).toBe(true);
    for (const status of errors) {
      expect(statuses).toContain(status);
      expect(operation.responses[status].content['application/problem+json'].schema.$ref).toBe(
        '#/components/schemas/ProblemDetail',
      );
    }
  });

  it('declares bearer authentication on protected operations and the Idempotency-Key header on transfers', () => {
    expect(document.components.securitySchemes.bearer).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
    expect(document.paths['/api/v1/transactions'].post.security).toEqual([{ bearer: [] }]);
    expect(document.paths['/api/v1/transactions'].post.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true })]),
    );
    expect(document.components.schemas.ProblemDetail.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'instance', 'timestamp', 'requestId']),
    );
  });

  it('serves Swagger UI publicly', async () => {
    const response = await t.api.get('/swagger-ui');
    expect(response.status).toBe(200);
    expect(response.text).toContain('swagger-ui');
  });
});
