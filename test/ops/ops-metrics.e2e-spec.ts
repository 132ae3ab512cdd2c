import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import { AuditMetrics } from '../../src/audit/audit-metrics';
import { createScratchDatabase } from '../support/db';
import { FakeUpiProvider } from '../support/fake-upi-provider';
import { waitUntil } from '../support/wait';
import { startTestApp, type TestApp } from '../support/test-app';

/** The metrics the operations alerts need beyond the request counters: ledger integrity and the memory limit. */
describe('integrity and runtime metrics', () => {
  let t: TestApp;
  let db: Client;
  let drop: () => Promise<void>;
  let scratchUrl: string;
  beforeAll(async () => {
    const scratch = await createScratchDatabase();
    drop = scratch.drop;
    scratchUrl = scratch.url;
    t = await startTestApp({ DATABASE_URL: scratch.url });
    db = new Client({ connectionString: scratch.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await drop?.();
  });

  /** The values of a label-less series in the scrape. */
  const scrape = async (name: string) => {
    const text = (await t.api.get('/actuator/prometheus')).text;
    return text
      .split('\n')
      .filter((line) => line.startsWith(`${name} `))
      .map((line) => Number(line.slice(name.length + 1)));
  };

  it('schedules the periodic audit by default and not with LEDGER_AUDIT_INTERVAL_MINUTES=0', async () => {
    expect(t.app.get(AuditMetrics).scheduled).toBe(true);
    const unscheduled = await startTestApp({ DATABASE_URL: scratchUrl, LEDGER_AUDIT_INTERVAL_MINUTES: '0' });
    try {
      expect(unscheduled.app.get(AuditMetrics).scheduled).toBe(false);
    } finally {
      await unscheduled.close();
    }
  });

  it('exports the periodic ledger audit: 0 findings on an intact ledger, more once an entry is changed', async () => {
    const [alice, bob] = [await t.api.registerUser({ balance: 100 }), await t.api.registerUser({ balance: 0 })];
    expect((await t.api.transfer(alice, bob.upiId, 10)).status).toBe(201);
    // Before the first scheduled run: no findings, and no run yet.
    expect(await scrape('payments_ledger_audit_last_run_timestamp_seconds')).toEqual([0]);

    const before = Date.now() / 1000;
    await t.app.get(AuditMetrics).runOnce();
    expect(await scrape('payments_ledger_audit_findings')).toEqual([0]);
    const [lastRun] = await scrape('payments_ledger_audit_last_run_timestamp_seconds');
    expect(lastRun).toBeGreaterThanOrEqual(Math.floor(before));

    // Tampering, past the ledger's triggers as someone with direct database access would.
    await db.query('BEGIN');
    await db.query('SET LOCAL session_replication_role = replica');
    await db.query(
      `UPDATE ledger_entries SET amount = amount + 1, balance_after = balance_after + 1
       WHERE id = (SELECT max(l.id) FROM ledger_entries l JOIN users u ON u.id = l.user_id WHERE u.upi_id = $1)`,
      [bob.upiId],
    );
    await db.query('COMMIT');
    await t.app.get(AuditMetrics).runOnce();
    const [findings] = await scrape('payments_ledger_audit_findings');
    expect(findings).toBeGreaterThan(0);
  });

  it('exports the memory limit beside the resident memory', async () => {
    const [limit] = await scrape('payments_memory_limit_bytes');
    const [rss] = await scrape('process_resident_memory_bytes');
    expect(limit).toBeGreaterThan(rss);
    expect(limit).toBeLessThan(Number.MAX_SAFE_INTEGER);
  });
});

/** The metrics table of docs/operations.md against a real scrape: every metric named, with every label it lists. */
describe('the metrics table of docs/operations.md', () => {
  let t: TestApp;
  let provider: FakeUpiProvider;
  beforeAll(async () => {
    // A UPI provider, so that calls go through the upiValidation circuit.
    provider = await new FakeUpiProvider().start();
    t = await startTestApp({ UPI_VERIFICATION_URL: `${provider.url}/verify` });
  });
  afterAll(async () => {
    await t?.close();
    await provider?.stop();
  });

  it('names only exported metrics, each with every label its row lists', async () => {
    // Traffic that makes the labelled series appear: a transfer and its replay, a failed login, an unmatched route.
    const [alice, bob] = [await t.api.registerUser({ balance: 10 }), await t.api.registerUser()];
    const key = `metrics-table-${Date.now()}`;
    for (let i = 0; i < 2; i++) expect((await t.api.transfer(alice, bob.upiId, 1, { key })).status).toBe(201);
    expect((await t.api.post('/api/v1/auth/login', { upiId: 'nobody.here@okbank' })).status).toBe(401);
    expect((await t.api.get('/no/such/route')).status).toBe(404);
    // The pool gauges are sampled every second.
    await waitUntil(
      async () => (await t.api.get('/actuator/prometheus')).text.includes('payments_db_pool_connections{'),
      'the first pool sample',
    );
    const scrape = (await t.api.get('/actuator/prometheus')).text;
    const labelsOf = (metric: string) =>
      scrape
        .split('\n')
        .filter((line) => new RegExp(`^${metric}(_bucket|_count|_sum)?[{ ]`).test(line))
        .flatMap((line) => [...line.matchAll(/([a-zA-Z_]+)="([^"]*)"/g)].flatMap(([, name, value]) => [name, value]));

    const operations = readFileSync(join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
    const table = operations.slice(
      operations.indexOf('| Metric '),
      operations.indexOf('\n\n', operations.indexOf('| Metric ')),
    );
    const rows = table.split('\n').slice(2);
    expect(rows.length).toBeGreaterThan(8);
    const problems: string[] = [];
    for (const row of rows) {
      const [, metricsCell, labelsCell] = row.split('|');
      const metrics = [...metricsCell.matchAll(/`([a-z_]+)(\{[a-z_,]+\})?`/g)];
      for (const [, metric, inline] of metrics) {
        const seen = labelsOf(metric);
        if (!scrape.includes(`# TYPE ${metric} `)) problems.push(`${metric} is not exported`);
        const listed = [...labelsCell.matchAll(/`([A-Za-z_]+)`/g)].map(([, label]) => label);
        for (const label of [...listed, ...(inline?.slice(1, -1).split(',') ?? [])])
          if (!seen.includes(label)) problems.push(`${metric} has no label (or value) ${label}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
