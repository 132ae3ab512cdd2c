import { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { uniqueUpiId } from '../support/api-client';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { startTestApp, type TestApp } from '../support/test-app';

describe('actuator', () => {
  let t: TestApp;
  const adminUpiId = uniqueUpiId('ops');
  beforeAll(async () => {
    t = await startTestApp({ ADMIN_UPI_IDS: adminUpiId });
  });
  afterAll(() => t.close());

  it('GET /actuator/health answers {"status":"UP"} and nothing more without an admin token', async () => {
    const anonymous = await t.api.get('/actuator/health');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toEqual({ status: 'UP' });
    const user = await t.api.registerUser();
    expect((await t.api.get('/actuator/health', user.token)).body).toEqual({ status: 'UP' });
    expect((await t.api.get('/actuator/health', 'not.a.valid-token')).body).toEqual({ status: 'UP' });
  });

  it('GET /actuator/health shows database, circuit breaker, rate limiter and kafka details to an admin', async () => {
    const admin = await t.api.registerUser({ upiId: adminUpiId });
    const response = await t.api.get('/actuator/health', admin.token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'UP',
      components: {
        db: { status: 'UP', details: {} },
        circuitBreakers: { status: 'UP', details: { upiValidation: 'CLOSED', aiCircuitBreaker: 'CLOSED' } },
        rateLimiter: { status: 'UP', details: { limitPerSecondPerUser: 10, rejectedSinceStart: expect.any(Number) } },
        // Light mode: no broker, events handled in process; the component never counts for readiness.
        kafka: {
          status: 'UP',
          // lastPublishedAt is left out: this instance's relay may hand on other test files' events.
          details: expect.objectContaining({
            brokers: [],
            affectsReadiness: false,
            pendingEvents: expect.any(Number),
            oldestPendingAgeSeconds: expect.any(Number),
            consecutiveFailures: 0,
            failingSince: null,
            lastError: null,
            nextAttemptAt: null,
          }),
        },
      },
    });
  });

  it('GET /actuator/health/liveness and /readiness answer UP', async () => {
    expect((await t.api.get('/actuator/health/liveness')).body).toEqual({ status: 'UP' });
    const readiness = await t.api.get('/actuator/health/readiness');
    expect(readiness.status).toBe(200);
    expect(readiness.body.status).toBe('UP');
  });

  it('GET /actuator/info names the service, version, commit, build time and Node version', async () => {
    const response = await t.api.get('/actuator/info');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      app: {
        name: 'payment-service',
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        description: expect.any(String),
      },
      git: { commit: expect.stringMatching(/^([0-9a-f]{40}|unknown)$/) },
      build: { time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) },
      runtime: { node: process.version },
    });
  });

  it('GET /actuator/prometheus has transfer, pool, circuit, rate-limit and outbox families after a transfer', async () => {
    const [alice, bob] = await Promise.all([t.api.registerUser({ balance: 100 }), t.api.registerUser()]);
    expect((await t.api.transfer(alice, bob.upiId, 1)).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1200)); // one sampling interval of the gauges
    const response = await t.api.get('/actuator/prometheus');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    for (const family of [
      'process_cpu_seconds_total',
      'nodejs_heap_size_used_bytes',
      'payments_transfers_total{outcome="201",replayed="false"}',
      'payments_transfer_duration_seconds_bucket',
      'payments_db_pool_connections{state="active"}',
      'payments_circuit_breaker_state{name="upiValidation"}',
      'payments_circuit_breaker_calls_total',
      'payments_rate_limit_rejections_total',
      'payments_outbox_pending_events',
      'payments_outbox_oldest_pending_age_seconds',
      'payments_outbox_published_total',
      'payments_outbox_publish_failures_total',
    ]) {
      expect(response.text).toContain(family);
    }
  });

  it('GET /actuator/metrics lists the metric names as JSON', async () => {
    const response = await t.api.get('/actuator/metrics');
    expect(response.status).toBe(200);
    expect(response.body.names).toEqual(
      expect.arrayContaining(['payments_transfers_total', 'payments_db_pool_connections', 'process_cpu_seconds_total']),
    );
  });
});

describe('readiness follows the database', () => {
  it('is DOWN while the database is unreachable and UP again when it returns', async () => {
    const dataDir = makeTempDir('payments-readiness', { forPostgres: true });
    const database = new EmbeddedDatabase({ dataDir, fsync: false });
    const url = await database.start();
    const adminUpiId = uniqueUpiId('ops');
    const t = await startTestApp({ DATABASE_URL: url, ADMIN_UPI_IDS: adminUpiId });
    try {
      const admin = await t.api.registerUser({ upiId: adminUpiId });
      expect((await t.api.get('/actuator/health/readiness')).status).toBe(200);
      await database.stop();
      // Components (and the database's error text) are for admins; anonymous probes get the status alone.
      expect((await t.api.get('/actuator/health/readiness')).body).toEqual({ status: 'DOWN' });
      const down = await t.api.get('/actuator/health/readiness', admin.token);
      expect(down.status).toBe(503);
      expect(down.body).toEqual(expect.objectContaining({ status: 'DOWN' }));
      expect(down.body.components.db.status).toBe('DOWN');
      expect((await t.api.get('/actuator/health')).body).toEqual({ status: 'DOWN' });
      expect((await t.api.get('/actuator/health/liveness')).status).toBe(200);

      await database.start(); // same data directory and port: the pool reconnects
      const up = await t.api.get('/actuator/health/readiness', admin.token);
      expect(up.status).toBe(200);
      expect(up.body.components.db.status).toBe('UP');
    } finally {
      await t.close();
      await database.stop();
      removeTempDir(dataDir);
    }
  }, 90_000);
});
