import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectMetric, makeCounterProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Counter, Histogram } from 'prom-client';
import { responseLabelsOf } from '../common/response-labels';

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
 * Fastify itself, which a Nest interceptor would never see: a hook on the whole Fastify server.
 * The problem's type is what its producer recorded on the reply (response-labels.ts), never re-read
 * from the body.
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
    fastify.addHook('onResponse', (request, reply, done) => {
      const status = reply.statusCode;
      this.requests.observe(
        { method: request.method, route: routeTemplate(request), status: String(status) },
        reply.elapsedTime / 1000,
      );
      if (status >= 400) {
        // The slug is one of a fixed set (the error table), so it is a safe label.
        const type = responseLabelsOf(reply.raw).problemType;
        if (type !== undefined) this.problems.inc({ type, status });
      }
      done();
    });
  }
}

function routeTemplate(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  // Nest's not-found handler has no route URL; a wildcard route would carry the raw path.
  return url === undefined || url === '' || url.includes('*') ? UNMATCHED_ROUTE : url;
}
