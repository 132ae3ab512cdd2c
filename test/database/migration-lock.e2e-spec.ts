import { MIGRATIONS } from '../../migrations';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { testUrl, withClient } from '../support/db';
import { TEST_JWT_SECRET } from '../support/jwt';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('replicas started together on an empty database', () => {
  const database = `replicas_${process.pid}_${Date.now()}`;
  const url = testUrl().replace(/\/[^/?]+(\?.*)?$/, `/${database}`);
  const services: ServiceProcess[] = [];

  beforeAll(() => withClient(testUrl(), (c) => c.query(`CREATE DATABASE ${database}`)));
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop('SIGTERM')));
    await withClient(testUrl(), (c) => c.query(`DROP DATABASE ${database} WITH (FORCE)`));
  });

  it('all three come up ready, and the migrations are applied once', async () => {
    const started = await Promise.allSettled(
      Array.from({ length: 3 }, () =>
        ServiceProcess.start(
          {
            DATABASE_URL: url,
            DATA_DIR: mkdtempSync(join(tmpdir(), 'payments-replica-')),
            JWT_SECRET: TEST_JWT_SECRET,
          },
          90_000,
        ),
      ),
    );
    for (const result of started) if (result.status === 'fulfilled') services.push(result.value);
    expect(started.map((r) => (r.status === 'rejected' ? String(r.reason) : 'started'))).toEqual([
      'started',
      'started',
      'started',
    ]);
    for (const service of services) {
      const readiness = await fetch(`${service.baseUrl}/actuator/health/readiness`);
      expect(readiness.status).toBe(200);
    }
    const applied = await withClient(url, (c) =>
      c.query<{ name: string; times: number }>(
        'SELECT name, count(*)::int AS times FROM schema_migrations GROUP BY name ORDER BY name',
      ),
    );
    expect(applied.rows).toHaveLength(MIGRATIONS.length);
    expect(applied.rows.every((row) => row.times === 1)).toBe(true);
  }, 150_000);
});
