import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { findRepoRoot } from '../../src/common/repo-root';
import type { Client } from 'pg';
import { randomPhone, uniqueUpiId } from '../support/api-client';
import { connectTestDatabase } from '../support/db';
import { FakeUpiProvider } from '../support/fake-upi-provider';
import { matches, parseExposition, type Sample, selectorsOf } from '../support/promql';
import { startTestApp, type TestApp } from '../support/test-app';

const OPS = join(findRepoRoot(), 'ops');

/** Labels and series Prometheus adds itself, never the service. */
const TARGET_LABELS = new Set(['job', 'instance']);
const PROMETHEUS_SERIES = new Set(['up']);

interface Query {
  source: string;
  expr: string;
}

function dashboardQueries(): Query[] {
  const dir = join(OPS, 'grafana', 'dashboards');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .flatMap((file) => {
      const dashboard = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        panels: { title: string; type: string; targets?: { expr: string }[] }[];
      };
      return dashboard.panels
        .filter((panel) => panel.type !== 'row')
        .flatMap((panel) => (panel.targets ?? []).map((t) => ({ source: `panel "${panel.title}"`, expr: t.expr })));
    });
}

function ruleQueries(): Query[] {
  const dir = join(OPS, 'prometheus', 'rules');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => {
      const rules = parse(readFileSync(join(dir, file), 'utf8')) as {
        groups: { rules: { alert?: string; record?: string; expr: string }[] }[];
      };
      return rules.groups.flatMap((group) =>
        group.rules.map((rule) => ({ source: `rule ${rule.alert ?? rule.record}`, expr: rule.expr })),
      );
    });
}

/** What is wrong with one query against the scrape: each selector must find a series with its labels. */
function problemsOf(query: Query, samples: Sample[]): string[] {
  const problems: string[] = [];
  for (const selector of selectorsOf(query.expr)) {
    if (PROMETHEUS_SERIES.has(selector.metric)) continue;
    const series = samples.filter((sample) => sample.name === selector.metric);
    if (series.length === 0) {
      problems.push(`${query.source}: ${selector.metric} is not exported`);
      continue;
    }
    const matchers = selector.matchers.filter((m) => !TARGET_LABELS.has(m.label));
    if (!series.some((sample) => matchers.every((matcher) => matches(sample, matcher)))) {
      problems.push(`${query.source}: no ${selector.metric} series matches ${JSON.stringify(matchers)}`);
    }
    for (const label of selector.groupBy.filter((l) => l !== 'le' && !TARGET_LABELS.has(l))) {
      if (!series.some((sample) => label in sample.labels)) {
        problems.push(`${query.source}: ${selector.metric} has no label ${label}`);
      }
    }
  }
  return problems;
}

describe('dashboards and alert rules name only what the service exports', () => {
  let t: TestApp;
  let provider: FakeUpiProvider;
  let samples: Sample[];
  let db: Client;
  const webhookEndpoint = '5e1b0c2a-7d3f-4a51-9c1e-0d2f3a4b5c6d';

  beforeAll(async () => {
    // A disabled webhook endpoint: its per-endpoint gauges are exported, and no event is fanned out to it.
    db = await connectTestDatabase();
    await db.query(
      `INSERT INTO webhook_endpoints (reference_id, url, events, secret, status)
       VALUES ($1, 'https://93.184.215.14/hooks', '{*}', 'whsec_AAAA', 'DISABLED') ON CONFLICT DO NOTHING`,
      [webhookEndpoint],
    );
    provider = await new FakeUpiProvider().start();
    t = await startTestApp({ UPI_VERIFICATION_URL: `${provider.url}/verify` });
    // Traffic that gives every panel something to draw: a transfer and its replay, client errors,
    // a server error (the UPI provider failing), a failed login, a request no route matches.
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 100 }), t.api.registerUser()]);
    expect((await t.api.transfer(alice, bob.upiId, 1, { key: 'metric-names-replay' })).status).toBe(201);
    expect((await t.api.transfer(alice, bob.upiId, 1, { key: 'metric-names-replay' })).status).toBe(201);
    expect((await t.api.transfer(alice, bob.upiId, 1000)).status).toBe(422);
    expect((await t.api.post('/api/v1/auth/login', { upiId: 'nobody.here@okbank' })).status).toBe(401);
    expect((await t.api.get('/no/such/route')).status).toBe(404);
    provider.mode = 'fail';
    const stranger = { name: 'Stranger', upiId: uniqueUpiId(), phoneNumber: randomPhone(), balance: 0 };
    expect((await t.api.post('/api/v1/users', stranger)).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // one sampling interval of the gauges
    samples = parseExposition((await t.api.get('/actuator/prometheus')).text);
  });
  afterAll(async () => {
    await t.close();
    await provider.stop();
    await db.query('DELETE FROM webhook_endpoints WHERE reference_id = $1', [webhookEndpoint]);
    await db.end();
  });

  it('the dashboard has a query on every panel, and covers every area an operator watches', () => {
    const queries = dashboardQueries();
    const metrics = new Set(queries.flatMap((q) => selectorsOf(q.expr).map((s) => s.metric)));
    for (const metric of [
      'payments_transfers_total',
      'payments_transfer_duration_seconds_bucket',
      'payments_problems_total',
      'http_server_requests_seconds_count',
      'http_server_requests_seconds_bucket',
      'payments_db_pool_connections',
      'payments_circuit_breaker_state',
      'payments_outbox_pending_events',
      'payments_outbox_oldest_pending_age_seconds',
      'payments_rate_limit_rejections_total',
      'payments_login_failures_total',
      'payments_login_lockouts_total',
      'payments_limit_refusals_total',
      'payments_frozen_accounts',
      'payments_disputes',
      'payments_disputes_overdue',
    ]) {
      expect(metrics).toContain(metric);
    }
  });

  it('the rules alert on 5xx ratio, p99, circuits, outbox age, pool waiting, readiness, the target, runtime, integrity, logins, webhooks, limits and disputes', () => {
    expect(
      ruleQueries()
        .map((q) => q.source)
        .sort(),
    ).toEqual(
      [
        'rule PaymentsHigh5xxRatio',
        'rule PaymentsTransferP99AboveTarget',
        'rule PaymentsCircuitOpen',
        'rule PaymentsOutboxStale',
        'rule PaymentsDbPoolWaiting',
        'rule PaymentsNotReady',
        'rule PaymentsTargetMissing',
        'rule PaymentsMemoryNearLimit',
        'rule PaymentsHeapNearLimit',
        'rule PaymentsEventLoopLag',
        'rule PaymentsGcPressure',
        'rule PaymentsRestarting',
        'rule PaymentsLedgerIntegrityBroken',
        'rule PaymentsLedgerAuditStale',
        'rule PaymentsLoginFailuresHigh',
        'rule PaymentsLoginLockouts',
        'rule PaymentsWebhookDeliveryStale',
        'rule PaymentsLimitRefusalsHigh',
        'rule DisputesOverdue',
      ].sort(),
    );
  });

  it('every series a dashboard panel queries is exported, with the labels it filters and groups by', () => {
    expect(dashboardQueries().flatMap((query) => problemsOf(query, samples))).toEqual([]);
  });

  it('every series an alert rule queries is exported, with the labels it filters and groups by', () => {
    expect(ruleQueries().flatMap((query) => problemsOf(query, samples))).toEqual([]);
  });

  it('the check itself catches a missing metric, a label value never seen and an unknown grouping label', () => {
    const query = (expr: string) => problemsOf({ source: 'probe', expr }, samples);
    expect(query('rate(payments_no_such_metric_total[5m])')).toHaveLength(1);
    expect(query('http_server_requests_seconds_count{status="599"}')).toHaveLength(1);
    expect(query('sum by (colour) (payments_db_pool_connections)')).toHaveLength(1);
    expect(query('sum by (state) (payments_db_pool_connections{state="waiting"})')).toEqual([]);
  });
});
