import type { FastifyInstance, FastifyRequest } from 'fastify';

interface RouteShape {
  pattern: RegExp;
  methods: Set<string>;
}

const TABLES = new WeakMap<object, RouteShape[]>();

/** Fastify URL syntax (`:param`, `*`) as an anchored regular expression. */
function patternOf(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => {
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}/?$`);
}

/**
 * Records every route as it is registered, so that a request for an existing path with the
 * wrong method can be told apart from an unknown path (405 with Allow, not 404).
 */
export function trackRoutes(fastify: FastifyInstance): void {
  const table: RouteShape[] = [];
  TABLES.set(fastify, table);
  fastify.addHook('onRoute', (route) => {
    const methods = [route.method].flat().map((m) => m.toUpperCase());
    const existing = table.find((shape) => shape.pattern.source === patternOf(route.url).source);
    if (existing) methods.forEach((m) => existing.methods.add(m));
    else table.push({ pattern: patternOf(route.url), methods: new Set(methods) });
  });
}

/** The methods some route accepts at this request's path; empty when no route has the path. */
export function allowedMethods(request: FastifyRequest): string[] {
  let table: RouteShape[] | undefined;
  for (let server: FastifyInstance | null = request.server; server && !table; server = parentOf(server)) {
    table = TABLES.get(server);
  }
  const path = request.url.split('?')[0];
  const methods = new Set<string>();
  for (const shape of table ?? []) if (shape.pattern.test(path)) shape.methods.forEach((m) => methods.add(m));
  return [...methods].sort();
}

/** Fastify's encapsulated contexts inherit from their parent's instance by prototype. */
function parentOf(server: FastifyInstance): FastifyInstance | null {
  return Object.getPrototypeOf(server) as FastifyInstance | null;
}
