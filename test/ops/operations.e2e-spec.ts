import { uniqueUpiId } from '../support/api-client';
import { parseExposition } from '../support/promql';
import { startTestApp, type TestApp } from '../support/test-app';

describe('operations endpoints and metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('GET /actuator links every actuator endpoint in Spring Boot shape, on the caller-facing host', async () => {
    const response = await t.api.get('/actuator');
    expect(response.status).toBe(200);
    const base = `${t.api.baseUrl}/actuator`;
    expect(response.body).toEqual({
      _links: {
        self: { href: base, templated: false },
        health: { href: `${base}/health`, templated: false },
        'health-path': { href: `${base}/health/{*path}`, templated: true },
        info: { href: `${base}/info`, templated: false },
        prometheus: { href: `${base}/prometheus`, templated: false },
        metrics: { href: `${base}/metrics`, templated: false },
        'metrics-requiredMetricName': { href: `${base}/metrics/{requiredMetricName}`, templated: true },
      },
    });
    for (const [name, link] of Object.entries(response.body._links as Record<string, { href: string }>)) {
      if (name.includes('-')) continue; // templated
      expect({ name, status: (await fetch(link.href)).status }).toEqual({ name, status: 200 });
    }
  });

  it('the HTTP histogram times every request by method, route template and status, unmatched ones together', async () => {
    const user = await t.api.registerUser();
    expect((await t.api.get(`/api/v1/users/upi/${encodeURIComponent(user.upiId)}`, user.token)).status).toBe(200);
    expect((await t.api.get(`/api/v1/users/upi/${uniqueUpiId()}`)).status).toBe(401);
    expect((await t.api.get(`/no/such/${uniqueUpiId()}`)).status).toBe(404);
    const series = parseExposition((await t.api.get('/actuator/prometheus')).text).filter(
      (sample) => sample.name === 'http_server_requests_seconds_count',
    );
    const labels = series.map((sample) => sample.labels);
    expect(labels).toContainEqual({ method: 'GET', route: '/api/v1/users/upi/:upiId', status: '200' });
    expect(labels).toContainEqual({ method: 'GET', route: '/api/v1/users/upi/:upiId', status: '401' });
    expect(labels).toContainEqual({ method: 'POST', route: '/api/v1/users', status: '201' });
    expect(labels).toContainEqual({ method: 'GET', route: 'UNMATCHED', status: '404' });
    // Route templates, never raw paths: a UPI ID or an unknown path must not become a label value.
    expect(labels.every((l) => !l.route.includes('@'))).toBe(true);
  });

  it('problems are counted by type and status', async () => {
    expect((await t.api.get('/api/v1/users/upi/a@b')).status).toBe(401);
    const problems = parseExposition((await t.api.get('/actuator/prometheus')).text).filter(
      (sample) => sample.name === 'payments_problems_total',
    );
    expect(problems.map((sample) => sample.labels)).toContainEqual({ type: 'unauthorized', status: '401' });
  });

  it('the pool gauge reports idle, active and waiting, without a summed total', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1200)); // one sampling interval
    const states = parseExposition((await t.api.get('/actuator/prometheus')).text)
      .filter((sample) => sample.name === 'payments_db_pool_connections')
      .map((sample) => sample.labels.state)
      .sort();
    expect(states).toEqual(['active', 'idle', 'waiting']);
  });

  it('GET /actuator/metrics/{name} sums a metric, filtered by ?tag=key:value, in Spring Boot shape', async () => {
    const user = await t.api.registerUser();
    await t.api.get(`/api/v1/users/upi/${encodeURIComponent(user.upiId)}`, user.token);
    const all = await t.api.get('/actuator/metrics/http_server_requests_seconds');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      name: 'http_server_requests_seconds',
      description: expect.stringContaining('HTTP'),
      baseUnit: 'seconds',
      measurements: [
        { statistic: 'COUNT', value: expect.any(Number) },
        { statistic: 'TOTAL_TIME', value: expect.any(Number) },
      ],
    });
    expect(all.body.availableTags.map((tag: { tag: string }) => tag.tag)).toEqual(['method', 'route', 'status']);

    const ok = await t.api.get('/actuator/metrics/http_server_requests_seconds?tag=route:/api/v1/users&tag=status:201');
    expect(ok.status).toBe(200);
    const count = (body: { measurements: { statistic: string; value: number }[] }) =>
      body.measurements.find((m) => m.statistic === 'COUNT')!.value;
    expect(count(ok.body)).toBeGreaterThanOrEqual(1);
    expect(count(ok.body)).toBeLessThan(count(all.body));
    // Tags already filtered on are not offered again.
    expect(ok.body.availableTags).toEqual([{ tag: 'method', values: ['POST'] }]);
  });

  it('GET /actuator/metrics/{name} answers problems for an unknown name, an unmatched tag and a malformed tag', async () => {
    const unknown = await t.api.get('/actuator/metrics/no_such_metric');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await t.api.get('/actuator/metrics/http_server_requests_seconds?tag=status:999')).status).toBe(404);
    expect((await t.api.get('/actuator/metrics/http_server_requests_seconds?tag=status')).status).toBe(400);
  });

  it('gauges and counters report VALUE and COUNT', async () => {
    const pool = await t.api.get('/actuator/metrics/payments_db_pool_connections?tag=state:idle');
    expect(pool.body.measurements).toEqual([{ statistic: 'VALUE', value: expect.any(Number) }]);
    const ready = await t.api.get('/actuator/metrics/payments_ready');
    expect(ready.body.measurements).toEqual([{ statistic: 'VALUE', value: 1 }]);
    const problems = await t.api.get('/actuator/metrics/payments_problems_total');
    expect(problems.body.measurements).toEqual([{ statistic: 'COUNT', value: expect.any(Number) }]);
    expect(problems.body.baseUnit).toBeNull();
  });
});
