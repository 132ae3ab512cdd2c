import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '../errors/error-code';
import { problemBody } from '../errors/problem-body';
import { ApiError } from '../errors/api-error';
import { sendProblem } from '../errors/problem.filter';

/**
 * Fastify answers some requests before any hook or Nest filter runs: a URL that does not
 * decode, a path parameter past the router's limit, and (in Node's HTTP parser) oversized
 * headers. These options make them problem+json with a request id like every other error.
 */
export function httpLayerErrorOptions(errorsBaseUrl: string) {
  return {
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('X-Request-Id', request.id);
      const apiError =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError(ErrorCode.UriTooLong, 'The request URI is too long')
          : error.code === 'FST_ERR_BAD_URL'
            ? new ApiError(ErrorCode.InvalidRequest, 'The request URL is not validly percent-encoded')
            : error;
      sendProblem(errorsBaseUrl, apiError, request, reply);
    },
    clientErrorHandler: (error: NodeJS.ErrnoException, socket: Socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
      const [code, detail] =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? [ErrorCode.HeaderFieldsTooLarge, 'The request header fields are too large']
          : [ErrorCode.InvalidRequest, 'The request is not valid HTTP'];
      socket.end(rawProblemResponse(errorsBaseUrl, code, detail, requestPathOf(error)));
    },
  };
}

/** The request never parsed, so there is no Fastify reply: write the whole HTTP response. */
function rawProblemResponse(errorsBaseUrl: string, code: ErrorCode, detail: string, instance: string): string {
  const requestId = randomUUID();
  const problem = problemBody(errorsBaseUrl, code, detail, {
    instance,
    timestamp: new Date().toISOString(),
    requestId,
  });
  const { status, title } = problem;
  const body = JSON.stringify(problem);
  return [
    `HTTP/1.1 ${status} ${title}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** The path from the request line Node had read when it gave up, for the problem's `instance`. */
function requestPathOf(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): string {
  const requestLine = error.rawPacket?.subarray(0, 2048).toString('latin1').split('\r\n')[0] ?? '';
  const target = /^[A-Z]+ (\/[^ ?]*)/.exec(requestLine)?.[1];
  return target ? target.slice(0, 1024) : '/';
}
