import type { OpenAPIObject } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/idempotency-key';
import { addLinks } from './api-links';
import { DEFAULT_PROBLEMS, problemExample, problemSlugs } from './problem-examples';
import { IDEMPOTENCY_KEY_PLACEHOLDER } from './swagger-ui-interceptor';

const PROBLEM_JSON = 'application/problem+json';
const EXAMPLE_UUID = '0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b';
const EXAMPLE_REQUEST_ID = '3f2b8c1e-5d4a-4e9b-9c1f-7a6e2d8b0c4d';
const EXAMPLE_TIME = '2026-11-22T10:15:30.123Z';

/** Path parameters by name, as the API names them everywhere. */
const PATH_PARAMETER_EXAMPLES: Record<string, string> = {
  id: EXAMPLE_UUID,
  referenceId: EXAMPLE_UUID,
  upiId: 'alice@okbank',
  amount: '1000.00',
  name: 'http_server_requests_seconds',
};

/** Path parameters named so are public ids, UUIDs: anything else is 400 before any lookup. */
const UUID_PATH_PARAMETERS = new Set(['id', 'referenceId']);

/** Statuses a stored idempotent outcome can be replayed with (the other answers are never stored). */
const REPLAYABLE = (status: number) => status < 300 || [400, 403, 404, 422].includes(status);

type Json = Record<string, any>;

/**
 * What decorators cannot say once per operation, applied to every operation of the document so that
 * operations added later are covered too: response headers, problem examples with their real `type`
 * and `instance`, the problem type enum, a 401 on every protected operation, path parameter examples.
 */
export function completeDocument(document: OpenAPIObject, errorsBaseUrl: string): OpenAPIObject {
  const problem = document.components?.schemas?.ProblemDetail as Json | undefined;
  if (problem) problem.properties.type.enum = problemSlugs().map((slug) => `${errorsBaseUrl}/${slug}`);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = (item as Json)[method] as Json | undefined;
      if (operation) completeOperation(path, operation, errorsBaseUrl);
    }
  }
  addLinks(document);
  return document;
}

function completeOperation(path: string, operation: Json, errorsBaseUrl: string): void {
  const parameters = (operation.parameters ?? []) as Json[];
  for (const parameter of parameters) {
    if (parameter.in === 'path' && parameter.example === undefined && parameter.name in PATH_PARAMETER_EXAMPLES) {
      parameter.example = PATH_PARAMETER_EXAMPLES[parameter.name];
    }
    if (parameter.in === 'path' && UUID_PATH_PARAMETERS.has(parameter.name)) {
      parameter.schema = { ...parameter.schema, type: 'string', format: 'uuid' };
    }
    if (!parameter.schema && !parameter.content) parameter.schema = { type: 'string' };
  }
  const idempotencyKey = parameters.find(
    (parameter) => parameter.in === 'header' && parameter.name === IDEMPOTENCY_KEY_HEADER,
  );
  if (idempotencyKey) describeIdempotencyKey(idempotencyKey);
  const concretePath = path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const parameter = parameters.find((candidate) => candidate.in === 'path' && candidate.name === name);
    return encodeURIComponent(String(parameter?.example ?? PATH_PARAMETER_EXAMPLES[name] ?? name));
  });
  if (operation.security?.length && !operation.responses[401]) {
    operation.responses[401] = problemResponse(401, 'Missing, expired, revoked or invalid bearer token');
  }
  documentAnswersOfEveryRoute(path, operation, parameters);
  for (const [key, response] of Object.entries(operation.responses as Record<string, Json>)) {
    const status = Number(key);
    response.headers = { ...headersFor(status, path, Boolean(idempotencyKey)), ...response.headers };
    const problems = response.content?.[PROBLEM_JSON];
    if (problems) completeProblems(problems, status, { errorsBaseUrl, instance: concretePath });
  }
}

/**
 * What any route of its kind can answer, whatever its controller says: the HTTP layer's refusals
 * (a URL that does not decode, a path parameter past the router's limit, a body too large or not
 * JSON), the control-character rule on every parameter, and 503 when the database is gone.
 */
function documentAnswersOfEveryRoute(path: string, operation: Json, parameters: Json[]): void {
  const add = (status: number, description: string) => {
    operation.responses[status] ??= problemResponse(status, description);
  };
  add(400, 'The URL is not validly percent-encoded, or a parameter or body is malformed');
  if (parameters.some((parameter) => parameter.in === 'path')) add(414, 'A path parameter is too long');
  if (parameters.length > 0 || operation.requestBody) add(422, 'A parameter or field is invalid');
  if (operation.requestBody) {
    add(413, 'The request body is larger than 64 KiB');
    add(415, 'The request body is not application/json');
  }
  if (path.startsWith('/api/')) add(503, 'The database or a dependency is unavailable');
  if (path.startsWith('/actuator/health')) operation.responses[503] ??= healthDown();
}

/** A probe's DOWN answer: the same shape as UP, with the 503 a load balancer acts on. */
function healthDown(): Json {
  const schema = {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['DOWN'] }, components: { type: 'object' } },
  };
  return { description: 'DOWN: out of rotation until it recovers', content: { 'application/json': { schema } } };
}

function describeIdempotencyKey(parameter: Json): void {
  parameter.schema = { ...parameter.schema, example: IDEMPOTENCY_KEY_PLACEHOLDER };
  parameter.example = IDEMPOTENCY_KEY_PLACEHOLDER;
  parameter.description =
    `${parameter.description ?? 'Names this request'}. In Swagger UI, "Try it out" replaces ` +
    `${IDEMPOTENCY_KEY_PLACEHOLDER} (or an empty key) with a new UUID on every Execute; type a key to replay.`;
}

function problemResponse(status: number, description: string): Json {
  return {
    description,
    content: { [PROBLEM_JSON]: { schema: { $ref: '#/components/schemas/ProblemDetail' } } },
  };
}

function completeProblems(media: Json, status: number, at: { errorsBaseUrl: string; instance: string }): void {
  if (!media.examples && media.example === undefined) {
    const codes = DEFAULT_PROBLEMS[status] ?? [];
    media.examples = Object.fromEntries(codes.map((code) => [code, { value: problemExample(code) }]));
  }
  for (const example of Object.values((media.examples ?? {}) as Record<string, Json>)) {
    // Only examples written by ApiProblems: they carry a slug, not yet a type.
    const value = example.value as Json | undefined;
    if (typeof value?.slug !== 'string') continue;
    example.summary ??= value.title;
    example.value = {
      type: `${at.errorsBaseUrl}/${value.slug}`,
      title: value.title,
      status,
      detail: value.detail,
      instance: at.instance,
      timestamp: EXAMPLE_TIME,
      requestId: EXAMPLE_REQUEST_ID,
      ...(value.errors ? { errors: value.errors } : {}),
      ...(value.limit ? { limit: value.limit } : {}),
    };
  }
}

function headersFor(status: number, path: string, idempotent: boolean): Json {
  const headers: Json = {
    'X-Request-Id': {
      description: "This request's id, also in the logs and in problem bodies; a caller's UUID X-Request-Id is reused",
      required: true,
      schema: { type: 'string', format: 'uuid', example: EXAMPLE_REQUEST_ID },
    },
  };
  if (status === 201) {
    const resource = idempotent ? '/api/v1/transactions' : path.replace(/\/\{\w+\}.*$/, '');
    headers.Location = {
      description: 'Where the created resource can be read',
      required: true,
      schema: { type: 'string', example: `${resource}/${EXAMPLE_UUID}` },
    };
  }
  if (status === 429 || status === 503) {
    headers['Retry-After'] = {
      description: status === 429 ? 'Seconds to wait before retrying' : 'Seconds to wait before retrying, when known',
      required: status === 429,
      schema: { type: 'integer', minimum: 0, example: 1 },
    };
  }
  if (idempotent && REPLAYABLE(status)) {
    headers[IDEMPOTENT_REPLAYED_HEADER] = {
      description: 'Present, with the value true, only when this answer replays the stored one of an earlier request',
      schema: { type: 'string', enum: ['true'], example: 'true' },
    };
  }
  return headers;
}
