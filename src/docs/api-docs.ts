import { applyDecorators, type Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  DocumentBuilder,
  getSchemaPath,
  SwaggerModule,
} from '@nestjs/swagger';
import { AppConfig } from '../config/app-config';
import { completeDocument } from './document-completion';
import { addOperationExamples } from './operation-examples';
import { DEFAULT_PROBLEMS, problemExample } from './problem-examples';
import { downloadUrlPlugin, freshIdempotencyKeys, rawJsonResponseBodies } from './swagger-ui-interceptor';

/** RFC 9457 problem details, as every error of this API is written. */
export class ProblemDetail {
  @ApiProperty({
    format: 'uri',
    description: 'The error base URL (ERRORS_BASE_URL) followed by the problem slug',
    example: 'https://errors.payments.local/validation-failed',
  })
  type: string;
  @ApiProperty({ example: 'Validation Failed' }) title: string;
  @ApiProperty({ type: 'integer', minimum: 400, maximum: 599, example: 422 }) status: number;
  @ApiProperty({ example: 'Request validation failed' }) detail: string;
  @ApiProperty({ example: '/api/v1/transactions' }) instance: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:15:30.123Z' }) timestamp: string;
  @ApiProperty({ format: 'uuid', example: '3f2b8c1e-5d4a-4e9b-9c1f-7a6e2d8b0c4d' }) requestId: string;
  @ApiPropertyOptional({
    description: 'Validation failures only: field name to message',
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { amount: 'amount must be at least 0.01' },
  })
  errors?: Record<string, string>;
  @ApiPropertyOptional({
    description:
      'limit-exceeded only: the limit, its maximum, what is used and remains (amounts, or a count), and when it resets',
    type: 'object',
    required: ['name', 'max', 'used', 'remaining', 'resetsAt'],
    properties: {
      name: { type: 'string', enum: ['daily-amount', 'daily-count', 'new-user-amount'] },
      max: { type: 'number' },
      used: { type: 'number' },
      remaining: { type: 'number' },
      resetsAt: { type: 'string', format: 'date-time' },
    },
  })
  limit?: Record<string, unknown>;
  @ApiPropertyOptional({
    description: 'history-archived only: the first month (UTC) whose history is live, YYYY-MM',
    pattern: '^\\d{4}-\\d{2}$',
    example: '2018-01',
  })
  firstLiveMonth?: string;
}

const STATUS_HINTS: Record<number, string> = {
  401: 'Missing, expired, revoked or invalid bearer token',
  429: 'Retry after the number of seconds in Retry-After',
  503: 'Retry later; Retry-After says when, if known',
};

/**
 * Documents the problems an operation answers with: a status (its usual problem) or an exact
 * problem code. Each becomes an example under its status; the document fills in `type` and `instance`.
 */
export function ApiProblems(...problems: (number | string)[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, string[]>();
  for (const problem of problems) {
    const codes = typeof problem === 'number' ? (DEFAULT_PROBLEMS[problem] ?? []) : [problem];
    for (const code of codes) {
      const { status } = problemExample(code);
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
  }
  return applyDecorators(
    ApiExtraModels(ProblemDetail),
    ...[...byStatus].map(([status, codes]) =>
      ApiResponse({
        status,
        description: [codes.map((code) => problemExample(code).title).join('; '), STATUS_HINTS[status]]
          .filter(Boolean)
          .join('. '),
        content: {
          'application/problem+json': {
            schema: { $ref: getSchemaPath(ProblemDetail) },
            examples: Object.fromEntries(codes.map((code) => [code, { value: problemExample(code) }])),
          },
        },
      }),
    ),
  );
}

/** The page envelope around `item`, for list endpoints. */
export function ApiPageResponse(item: Type<unknown>): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(item),
    ApiResponse({
      status: 200,
      description: 'One page, 0-based',
      schema: {
        type: 'object',
        required: ['content', 'page', 'size', 'totalElements', 'totalPages', 'first', 'last'],
        properties: {
          content: { type: 'array', items: { $ref: getSchemaPath(item) } },
          page: { type: 'integer', example: 0 },
          size: { type: 'integer', example: 10 },
          totalElements: { type: 'integer', example: 1 },
          totalPages: { type: 'integer', example: 1 },
          first: { type: 'boolean', example: true },
          last: { type: 'boolean', example: true },
        },
      },
    }),
  );
}

/** Swagger UI at /swagger-ui and the OpenAPI 3.0 document at /v3/api-docs, both public. */
export function setUpApiDocs(app: NestFastifyApplication, version: string): void {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle('Payment service')
    .setDescription(
      'Peer-to-peer INR transfers with exactly-once semantics. Log in with POST /api/v1/auth/login, then ' +
        'press Authorize and paste the accessToken. Amounts are JSON numbers with up to 4 decimals. ' +
        'Every error is an application/problem+json body; every answer carries X-Request-Id.',
    )
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  const document = completeDocument(SwaggerModule.createDocument(app, config), app.get(AppConfig).errorsBaseUrl);
  addOperationExamples(document);
  SwaggerModule.setup('swagger-ui', app, document, {
    jsonDocumentUrl: 'v3/api-docs',
    yamlDocumentUrl: 'v3/api-docs.yaml',
    swaggerOptions: {
      // A bearer token in localStorage outlives the tab and is readable by any script on the origin.
      persistAuthorization: false,
      requestInterceptor: freshIdempotencyKeys,
      plugins: [downloadUrlPlugin, rawJsonResponseBodies],
    },
  });
}
