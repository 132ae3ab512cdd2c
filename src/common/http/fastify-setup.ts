import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { NotFoundException } from '@nestjs/common';
import { invalidRequest } from '../errors/api-error';
import { sendProblem } from '../errors/problem.filter';
import { parseJsonPreservingNumbers } from '../money/json-body';
import { isUuid } from './params';
import { allowedMethods, trackRoutes } from './route-table';

export const BODY_LIMIT_BYTES = 64 * 1024;

/** Reuse a caller's X-Request-Id when it is a UUID, so one id follows a request across services. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && isUuid(incoming) ? incoming.toLowerCase() : randomUUID();
}

/**
 * The request id header, 405 for a method the path does not take (before anything reads a body),
 * and a JSON parser that keeps number source text (Nest's filters handle its errors).
 */
export function configureFastify(fastify: FastifyInstance, errorsBaseUrl: string): void {
  trackRoutes(fastify);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    // Answered here, not by the not-found route: Fastify would first refuse a body method such as
    // QUERY without a Content-Type (400) before any route could say the method is not allowed.
    const allowed = request.is404 ? allowedMethods(request) : [];
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return sendProblem(errorsBaseUrl, new NotFoundException(), request, reply);
    }
    done();
  });

  // JSON only: any other media type is refused by Fastify with 415.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (_request, body, done) => {
      const text = body as string;
      if (text.trim() === '') return done(invalidRequest('The request body is empty; a JSON object is expected'));
      let parsed: unknown;
      try {
        parsed = parseJsonPreservingNumbers(text);
      } catch (error) {
        // Only a syntax error is the client's fault; anything else is ours and must surface as a 500.
        if (!(error instanceof SyntaxError)) return done(error as Error);
        return done(invalidRequest('The request body is not valid JSON'));
      }
      done(null, parsed);
    },
  );
}
