import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { DatabaseOutages } from './database-outages';
import { isDatabaseUnavailable } from './postgres-errors';
import { allowedMethods } from '../http/route-table';
import { ApiError } from './api-error';
import { ErrorCode } from './error-code';
import { problemBody, type ProblemBody } from './problem-body';
import { labelResponse } from '../response-labels';

const CODE_BY_HTTP_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.InvalidRequest,
  401: ErrorCode.Unauthorized,
  403: ErrorCode.Forbidden,
  404: ErrorCode.NotFound,
  405: ErrorCode.MethodNotAllowed,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
  414: ErrorCode.UriTooLong,
  415: ErrorCode.UnsupportedMediaType,
  422: ErrorCode.ValidationFailed,
  429: ErrorCode.RateLimitExceeded,
  431: ErrorCode.HeaderFieldsTooLarge,
  503: ErrorCode.ServiceUnavailable,
};

const logger = new Logger('ProblemFilter');

/** Seconds a client should wait before retrying while the database is away (it usually returns within seconds). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** What the HTTP layer's own refusals say; framework wording and codes never reach the client. */
const HTTP_LAYER_DETAILS: Record<number, string> = {
  404: 'No resource exists at this path',
  413: 'The request body is larger than the service accepts',
  414: 'The request URI is too long',
  415: 'Content-Type must be application/json',
  431: 'The request header fields are too large',
};

/** The one place every error becomes an RFC 9457 problem; internals never reach the client. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(
    private readonly config: AppConfig,
    private readonly outages: DatabaseOutages,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendProblem(
      this.config.errorsBaseUrl,
      exception,
      http.getRequest<FastifyRequest>(),
      http.getResponse<FastifyReply>(),
      this.outages,
    );
  }
}

export function sendProblem(
  errorsBaseUrl: string,
  exception: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  outages?: DatabaseOutages,
): void {
  const apiError = toApiError(exception, request, outages);
  const body = buildProblem(errorsBaseUrl, apiError, request);
  for (const [name, value] of Object.entries(apiError.extras.headers ?? {})) void reply.header(name, value);
  labelResponse(reply.raw, { problemType: apiError.code });
  void reply.status(body.status).type('application/problem+json').send(body);
}

function toApiError(exception: unknown, request: FastifyRequest, outages?: DatabaseOutages): ApiError {
  if (exception instanceof ApiError) return exception;
  if (isDatabaseUnavailable(exception)) {
    // Counted, and the outage logged once by the tracker; a line per request would flood the log.
    outages?.absorbs('requests', exception);
    logger.debug(
      `Database unavailable on ${request.method} ${request.url} (request ${request.id}): ${(exception as Error).message}`,
    );
    return new ApiError(ErrorCode.ServiceUnavailable, 'The database is unavailable; retry shortly', {
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    });
  }
  if (exception instanceof NotFoundException) {
    const wrongMethod = methodNotAllowed(request);
    if (wrongMethod) return wrongMethod;
  }
  const status = httpStatusOf(exception);
  if (status !== undefined && status < 500) {
    const code = CODE_BY_HTTP_STATUS[status] ?? ErrorCode.InvalidRequest;
    return new ApiError(code, clientMessage(exception, status));
  }
  logger.error(
    `Unhandled error on ${request.method} ${request.url} (request ${request.id})`,
    exception instanceof Error ? exception.stack : String(exception),
  );
  return new ApiError(
    ErrorCode.InternalError,
    'An unexpected error occurred; the request id identifies it in the logs',
  );
}

/** No route for this method, but the path exists for others: 405 with the methods it does accept. */
function methodNotAllowed(request: FastifyRequest): ApiError | undefined {
  const allowed = allowedMethods(request);
  if (allowed.length === 0 || allowed.includes(request.method)) return undefined;
  return new ApiError(
    ErrorCode.MethodNotAllowed,
    `${request.method} is not supported here; use ${allowed.join(', ')}`,
    {
      headers: { Allow: allowed.join(', ') },
    },
  );
}

/** A problem's `instance`: the request's path, without its query. */
export function instanceOf(request: FastifyRequest): string {
  return request.url.split('?')[0];
}

export function buildProblem(
  errorsBaseUrl: string,
  error: ApiError,
  request: FastifyRequest,
): ProblemBody & Record<string, unknown> {
  const occurrence = {
    instance: instanceOf(request),
    timestamp: new Date().toISOString(),
    requestId: String(request.id),
  };
  return {
    ...problemBody(errorsBaseUrl, error.code, error.detail, occurrence, error.extras.errors),
    ...error.extras.members,
  };
}

function httpStatusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  // Fastify's own errors (malformed JSON, body too large, bad media type) carry statusCode.
  const statusCode = (exception as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' ? statusCode : undefined;
}

function clientMessage(exception: unknown, status: number): string {
  const frameworkCode = (exception as { code?: unknown }).code;
  const fromFramework = typeof frameworkCode === 'string' && frameworkCode.startsWith('FST_');
  if (HTTP_LAYER_DETAILS[status] && (fromFramework || status !== 404)) return HTTP_LAYER_DETAILS[status];
  if (exception instanceof HttpException) {
    const response = exception.getResponse();
    if (typeof response === 'string') return response;
    const message = (response as { message?: unknown }).message;
    if (typeof message === 'string') return message;
    if (Array.isArray(message)) return message.join('; ');
    return exception.message;
  }
  // Fastify's framework errors (FST_*) have client-safe messages; anything else stays generic.
  if (exception instanceof Error && fromFramework) return exception.message;
  return `Request rejected with status ${status}`;
}
