import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import { ERROR_DESCRIPTORS, ErrorCode } from '../../src/common/errors/error-code';
import { startTestApp, type TestApp } from '../support/test-app';

const GUIDE = readFileSync(join(REPO_ROOT, 'docs', 'api-guide.md'), 'utf8');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** docs/api-guide.md against the two sources of truth: the running service's document and the problem vocabulary. */
describe('the API guide', () => {
  let t: TestApp;
  let routes: string[];
  beforeAll(async () => {
    t = await startTestApp();
    const document = (await t.api.get('/v3/api-docs')).body as { paths: Record<string, Record<string, unknown>> };
    routes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => METHODS.includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
  });
  afterAll(() => t.close());

  it('names every route of the OpenAPI document, as the document writes it', () => {
    expect(routes.length).toBeGreaterThan(10);
    const missing = routes.filter((route) => !new RegExp('`' + escape(route) + '[`? ]').test(GUIDE));
    expect(missing).toEqual([]);
  });

  it('names no business route the document does not have', () => {
    const named = [...GUIDE.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`?\s]*)/g)].map(
      ([, method, path]) => `${method} ${path}`,
    );
    expect(named.length).toBeGreaterThan(10);
    expect([...new Set(named)].filter((route) => !routes.includes(route))).toEqual([]);
  });

  it('lists every problem slug of the vocabulary under its status, and no other', () => {
    const rows = GUIDE.split('\n').filter((line) => /^\| \d{3} +\| /.test(line));
    const listed = new Map<string, number>();
    for (const row of rows) {
      const status = Number(row.slice(2, 5));
      for (const [, slug] of row.matchAll(/`([a-z]+(?:-[a-z]+)*)`/g)) listed.set(slug, status);
    }
    const vocabulary = Object.values(ErrorCode) as string[];
    expect(vocabulary.filter((slug) => !listed.has(slug))).toEqual([]);
    expect([...listed.keys()].filter((slug) => !vocabulary.includes(slug))).toEqual([]);
    for (const slug of vocabulary)
      expect({ slug, status: listed.get(slug) }).toEqual({
        slug,
        status: ERROR_DESCRIPTORS[slug as ErrorCode].status,
      });
  });
});
