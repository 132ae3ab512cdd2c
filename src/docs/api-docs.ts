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

/** RFC 9457 problem details, as every error of this API is written. */
export class ProblemDetail {
  @ApiProperty({ example: 'https://errors.payments.local/insufficient-balance' }) type: string;
  @ApiProperty({ example: 'Insufficient Balance' }) title: string;
  @ApiProperty({ example: 422 }) status: number;
  @ApiProperty({ example: 'Available balance 50.0000 is less than the required amount 100.0000' }) detail: string;
  @ApiProperty({ example: '/api/v1/transactions' }) instance: string;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiProperty({ format: 'uuid' }) requestId: string;
  @ApiPropertyOptional({
    description: 'Validation failures only: field name to message',
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { amount: 'amount must be at least 0.0100' },
  })
  errors?: Record<string, string>;
}

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON, a parameter of the wrong type, a bad UUID, a missing or malformed Idempotency-Key, a key reused for another request, or a self-transfer',
  401: 'Missing, expired or invalid bearer token, or a failed login',
  403: 'The caller may not do this (forbidden-operation)',
  404: 'User or transaction not found',
  409: 'Duplicate UPI ID, or an Idempotency-Key still in flight',
  413: 'Request body too large',
  415: 'Request body is not application/json',
  422: 'Validation failed (see errors), insufficient balance, UPI ID rejected by verification, or a reversal above what remains (reversal-exceeds-remaining) or of a non-transfer (not-reversible)',
  429: 'Per-user rate limit exceeded; retry after the Retry-After header',
  500: 'Unexpected failure (sanitized)',
  503: 'A downstream circuit is open, a provider failed, or the feature is disabled',
};

/** Documents each listed error status of an operation with the problem+json schema. */
export function ApiProblems(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ProblemDetail),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: PROBLEM_DESCRIPTIONS[status],
        content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDetail) } } },
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
        'press Authorize and paste the accessToken. Amounts are JSON numbers with up to 4 decimals.',
    )
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('swagger-ui', app, document, {
    jsonDocumentUrl: 'v3/api-docs',
    yamlDocumentUrl: 'v3/api-docs.yaml',
    swaggerOptions: { persistAuthorization: true },
  });
}
