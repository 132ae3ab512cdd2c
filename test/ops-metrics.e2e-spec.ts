import { Client } from 'pg';
import { AuditMetrics } from '../src/audit/audit-metrics';
import { createScratchDatabase } from './support/db';
import { startTestApp, type TestApp } from './support/test-app';

/** The metrics the operations alerts need beyond the request counters: ledger integrity and the memory limit. */
describe('integrity and runtime metrics', () => {
  let t: TestApp;
  let db: Client;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const scratch = await createScratchDatabase();
    drop = scratch.drop;
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
