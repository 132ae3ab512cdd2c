import { startTestApp, type TestApp } from '../support/test-app';

/** Helmet's defaults with the Swagger-friendly CSP: the exact set every response carries. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'none';" +
    "img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';" +
    "style-src 'self' 'unsafe-inline';connect-src 'self'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

function securityHeadersOf(headers: Headers): Record<string, string | null> {
  return Object.fromEntries(Object.keys(SECURITY_HEADERS).map((name) => [name, headers.get(name)]));
}

describe('security headers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('are on a transfer, on a problem, and on the API docs page, and no X-Powered-By', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 10 }), t.api.registerUser()]);
    const responses = [
      await t.api.transfer(alice, bob.upiId, 1),
      await t.api.get('/api/v1/nothing-here'),
      await t.api.get('/swagger-ui'),
    ];
    expect(responses.map((r) => r.status)).toEqual([201, 404, 200]);
    for (const response of responses) {
      expect(securityHeadersOf(response.headers)).toEqual(SECURITY_HEADERS);
      expect(response.headers.get('x-powered-by')).toBeNull();
    }
    // Nothing beside them: the problem answer carries these and the HTTP basics, no other header.
    const others = [...responses[1].headers.keys()].filter((name) => !(name in SECURITY_HEADERS));
    expect(others.sort()).toEqual([
      'connection',
      'content-length',
      'content-type',
      'date',
      'keep-alive',
      'x-request-id',
    ]);
  });
});
