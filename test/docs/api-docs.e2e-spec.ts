import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { generateSchemaSource } from '../../clients/typescript/scripts/generate-schema';
import { ERROR_DESCRIPTORS } from '../../src/common/errors/error-code';
import { documentedExamples, operationsOf, SchemaValidator } from '../support/openapi-examples';
import { startTestApp, type TestApp } from '../support/test-app';

const CLIENT_SCHEMA = join(__dirname, '..', '..', 'clients', 'typescript', 'src', 'openapi.ts');
const TITLES = ERROR_DESCRIPTORS as Record<string, { status: number; title: string }>;

/** Every operation of the spec, with the error statuses it lists (plus those docs/decisions/0002-where-the-interface-is-silent.md adds). */
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
  afterAll(async () => {
    await t.close();
    // Loading prettier imports node:process as an ES module, whose facade reads every property of
    // process, stdin included: that opens the worker's stdin, which then keeps the Jest worker
    // alive after its last test ("A worker process has failed to exit gracefully").
    process.stdin.destroy();
  });

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

  it('has examples that all validate against their schemas (formats and nullable included)', () => {
    const validator = new SchemaValidator(document);
    const examples = documentedExamples(document);
    expect(examples.length).toBeGreaterThan(100);
    const failures = examples.flatMap(({ where, schema, value }) =>
      validator.errors(schema, value).map((error) => `${where}: ${error} (example ${JSON.stringify(value)})`),
    );
    expect(failures).toEqual([]);
  });

  it('shows JSON bodies, composed from the property examples as Swagger UI does, that validate', () => {
    const validator = new SchemaValidator(document);
    const failures: string[] = [];
    let checked = 0;
    for (const [where, operation] of operationsOf(document)) {
      const bodies = [
        ['request', operation.requestBody?.content?.['application/json']],
        ...Object.entries(operation.responses).map(([status, response]: [string, any]) => [
          status,
          response.content?.['application/json'],
        ]),
      ] as [string, any][];
      for (const [which, media] of bodies) {
        if (!media?.schema || (media.schema.type === undefined && !media.schema.$ref && !media.schema.properties))
          continue;
        const sample = validator.sample(media.schema);
        checked += 1;
        for (const error of validator.errors(media.schema, sample)) {
          failures.push(`${where} ${which}: ${error} (sample ${JSON.stringify(sample)})`);
        }
      }
    }
    expect(checked).toBeGreaterThan(12);
    expect(failures).toEqual([]);
  });

  it('gives every error status its own problem examples, matching the status and the problem catalogue', () => {
    const wrong: string[] = [];
    let problems = 0;
    for (const [where, operation] of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses) as [string, any][]) {
        const media = response.content?.['application/problem+json'];
        if (!media) continue;
        const examples = Object.values(media.examples ?? {}) as { value: any }[];
        if (examples.length === 0) wrong.push(`${where} ${status}: no example`);
        for (const { value } of examples) {
          problems += 1;
          const slug = String(value.type).split('/').pop()!;
          const expected = TITLES[slug];
          if (value.status !== Number(status) || expected?.status !== value.status || expected.title !== value.title)
            wrong.push(`${where} ${status}: example ${value.type} ${value.status} ${value.title}`);
          if (!String(value.instance).startsWith('/api/') && !String(value.instance).startsWith('/actuator'))
            wrong.push(`${where} ${status}: instance ${value.instance}`);
        }
      }
    }
    expect(problems).toBeGreaterThan(50);
    expect(wrong).toEqual([]);

    const transfer = document.paths['/api/v1/transactions'].post.responses;
    const slugs = (status: number) =>
      Object.values(transfer[status].content['application/problem+json'].examples).map((e: any) =>
        String(e.value.type).split('/').pop(),
      );
    expect(slugs(401)).toEqual(['unauthorized']);
    expect(slugs(429)).toEqual(['rate-limit-exceeded']);
    expect(slugs(422)).toEqual(expect.arrayContaining(['validation-failed', 'insufficient-balance']));
    expect(slugs(409)).toEqual(['idempotency-key-in-flight']);
    expect(transfer[401].description).not.toMatch(/balance/i);
  });

  it('documents X-Request-Id everywhere, Location on 201, Retry-After on 429 and Idempotent-Replayed on replays', () => {
    const missing: string[] = [];
    for (const [where, operation] of operationsOf(document)) {
      const idempotent = (operation.parameters ?? []).some(
        (p: any) => p.in === 'header' && p.name === 'Idempotency-Key',
      );
      for (const [status, response] of Object.entries(operation.responses) as [string, any][]) {
        const headers = Object.keys(response.headers ?? {});
        const needed = ['X-Request-Id'];
        if (status === '201') needed.push('Location');
        if (status === '429') needed.push('Retry-After');
        if (idempotent && status.startsWith('2')) needed.push('Idempotent-Replayed');
        for (const name of needed) if (!headers.includes(name)) missing.push(`${where} ${status} ${name}`);
      }
    }
    expect(missing).toEqual([]);
    const transfer = document.paths['/api/v1/transactions'].post;
    expect(transfer.responses[429].headers['Retry-After']).toEqual(
      expect.objectContaining({ required: true, schema: expect.objectContaining({ type: 'integer' }) }),
    );
    expect(transfer.responses[201].headers['Idempotent-Replayed'].schema.enum).toEqual(['true']);
  });

  it('types note as a nullable string, enumerates status, type and problem types, and exemplifies path parameters', () => {
    const transaction = document.components.schemas.TransactionResponse.properties;
    expect(transaction.note).toEqual(expect.objectContaining({ type: 'string', nullable: true }));
    expect(transaction.status.enum).toEqual(expect.arrayContaining(['COMPLETED']));
    expect(transaction.type.enum).toEqual(expect.arrayContaining(['TRANSFER']));
    expect(document.components.schemas.ProblemDetail.properties.type.enum).toEqual(
      expect.arrayContaining(Object.keys(TITLES).map((slug) => `https://errors.payments.local/${slug}`)),
    );
    const withoutExample = operationsOf(document).flatMap(([where, operation]) =>
      (operation.parameters ?? [])
        .filter((p: any) => p.in === 'path' && p.example === undefined && p.schema?.example === undefined)
        .map((p: any) => `${where} ${p.name}`),
    );
    expect(withoutExample).toEqual([]);
  });

  it('lets Swagger UI send a fresh Idempotency-Key on every try', async () => {
    const key = document.paths['/api/v1/transactions'].post.parameters.find((p: any) => p.name === 'Idempotency-Key');
    expect(key.example).toBe('fresh-key-per-try');
    const init = await t.api.get('/swagger-ui/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toMatch(/requestInterceptor.*function freshIdempotencyKeys/s);
  });

  it('shows response bodies as sent (a Swagger UI plugin) and amounts in examples with 4 decimals', async () => {
    const init = await t.api.get('/swagger-ui/swagger-ui-init.js');
    expect(init.text).toMatch(/plugins.*function downloadUrlPlugin.*function rawJsonResponseBodies/s);
    const schemas = document.components.schemas;
    const transfer = document.paths['/api/v1/transactions'].post;
    const amounts = {
      registration: document.paths['/api/v1/users'].post.requestBody.content['application/json'].example.balance,
      transferRequest: schemas.TransferRequest.properties.amount.example,
      transfer201: transfer.responses['201'].content['application/json'].example.amount,
      transaction: schemas.TransactionResponse.properties.amount.example,
      reversed: schemas.TransactionResponse.properties.reversedAmount.example,
      ledgerAmount: schemas.LedgerEntryResponse.properties.amount.example,
      ledgerBalance: schemas.LedgerEntryResponse.properties.balanceAfter.example,
    };
    const notFourDecimals = Object.entries(amounts).filter(([, value]) => !/^\d+\.\d{4}$/.test(String(value)));
    expect(notFourDecimals).toEqual([]);
  });

  it('matches the committed TypeScript client (clients/typescript), or UPDATE_CLIENT=1 rewrites it', async () => {
    const generated = await generateSchemaSource(document, CLIENT_SCHEMA);
    if (process.env.UPDATE_CLIENT === '1') writeFileSync(CLIENT_SCHEMA, generated);
    expect(readFileSync(CLIENT_SCHEMA, 'utf8')).toBe(generated);
  });
});
