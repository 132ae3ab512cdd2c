import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectMetric, makeCounterProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Counter, Histogram } from 'prom-client';

export const HTTP_SERVER_REQUESTS = 'http_server_requests_seconds';
export const PROBLEMS = 'payments_problems_total';

/** Requests that matched no route share one label value, so scanners cannot explode the series count. */
export const UNMATCHED_ROUTE = 'UNMATCHED';

export const httpMetricProviders = [
  makeHistogramProvider({
    name: HTTP_SERVER_REQUESTS,
    help: 'HTTP server request latency in seconds, by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  }),
  makeCounterProvider({
    name: PROBLEMS,
    help: 'Problem (error) responses by problem type slug and HTTP status',
    labelNames: ['type', 'status'],
  }),
];

/**
 * Times every request and counts every problem, including those refused by guards, filters and
 * Fastify itself, which a Nest interceptor would never see: hooks on the whole Fastify server.
 */
@Injectable()
export class HttpMetrics implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @InjectMetric(HTTP_SERVER_REQUESTS) private readonly requests: Histogram,
    @InjectMetric(PROBLEMS) private readonly problems: Counter,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.addHook('onSend', (_request, reply, payload, done) => {
      if (reply.statusCode >= 400) this.countProblem(reply, payload);
      done(null, payload);
    });
    fastify.addHook('onResponse', (request, reply, done) => {
      this.requests.observe(
        { method: request.method, route: routeTemplate(request), status: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      done();
    });
  }

  private countProblem(reply: FastifyReply, payload: unknown): void {
    const contentType = String(reply.getHeader('content-type') ?? '');
    const text = Buffer.isBuffer(payload) ? payload.toString() : payload;
    if (!contentType.startsWith('application/problem+json') || typeof text !== 'string') return;
    try {
      const { type } = JSON.parse(text) as { type?: unknown };
      // The slug is one of a fixed set (the error table), so it is a safe label.
      if (typeof type === 'string') this.problems.inc({ type: type.split('/').pop(), status: reply.statusCode });
    } catch {
      // A problem body we cannot read is still timed by the histogram.
    }
  }
}

function routeTemplate(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  // Nest's not-found handler has no route URL; a wildcard route would carry the raw path.
  return url === undefined || url === '' || url.includes('*') ? UNMATCHED_ROUTE : url;
}
