import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, outboxRetentionDays, retentionYears } from './app-config';

const SECRET = 'a-test-secret-that-is-32-bytes-long!!';

const dataDirs: string[] = [];
afterAll(() => dataDirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function freshDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'payments-config-'));
  dataDirs.push(dir);
  return dir;
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ DATA_DIR: freshDataDir(), JWT_SECRET: SECRET, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('applies the documented defaults (docs/configuration.md)', () => {
    const config = loadConfig({ DATA_DIR: freshDataDir(), JWT_SECRET: SECRET });
    expect(config).toEqual(
      expect.objectContaining({
        port: 8080,
        databaseUrl: undefined,
        jwtExpirationMs: 3_600_000,
        rateLimitPerSecond: 10,
        rateLimitStore: 'memory',
        idempotencyTtlHours: 24,
        kafkaBrokers: [],
        kafkaTopic: 'payments.transfer-completed',
        kafkaReplicationFactor: 1,
        upiVerificationUrl: undefined,
        upiVerificationTimeoutMs: 2000,
        insightsEnabled: true,
        aiModel: 'gpt-4o-mini',
        aiTimeoutMs: 3000,
        errorsBaseUrl: 'https://errors.payments.local',
        logLevel: 'info',
        scheduledTransfersMaxPerUser: 100,
      }),
    );
    expect([...config.adminUpiIds]).toEqual([]);
  });

  it('reads admin UPI IDs case-insensitively and Kafka brokers as a list', () => {
    const config = loadConfig({
      DATA_DIR: freshDataDir(),
      JWT_SECRET: SECRET,
      ADMIN_UPI_IDS: ' Root@OkBank, ops@ybl ,',
      KAFKA_BROKERS: 'a:9092, b:9092',
    });
    expect([...config.adminUpiIds]).toEqual(['root@okbank', 'ops@ybl']);
    expect(config.kafkaBrokers).toEqual(['a:9092', 'b:9092']);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['JWT_EXPIRATION_MS', '-5'],
    ['RATE_LIMIT_PER_SECOND', '0'],
    ['RATE_LIMIT_STORE', 'redis'],
    ['IDEMPOTENCY_TTL_HOURS', '1.5'],
    ['KAFKA_REPLICATION_FACTOR', 'three'],
    ['UPI_VERIFICATION_URL', 'not a url'],
    ['INSIGHTS_ENABLED', 'maybe'],
    ['AI_BASE_URL', 'ftp://model'],
    ['LOG_LEVEL', 'loud'],
    ['JWT_SECRET', 'short'],
    ['SCHEDULED_TRANSFERS_MAX_PER_USER', '0'],
    ['SCHEDULED_TRANSFERS_MAX_PER_USER', 'many'],
  ])('refuses %s=%j with a message naming the variable', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(name);
  });

  it('reports every bad variable at once', () => {
    expect(problemsOf({ PORT: 'x', LOG_LEVEL: 'y' })).toEqual([
      expect.stringContaining('PORT'),
      expect.stringContaining('LOG_LEVEL'),
    ]);
  });

  it('requires JWT_SECRET in production', () => {
    expect(() => loadConfig({ DATA_DIR: freshDataDir(), NODE_ENV: 'production' })).toThrow(/JWT_SECRET is required/);
    expect(loadConfig({ DATA_DIR: freshDataDir(), NODE_ENV: 'production', JWT_SECRET: SECRET }).jwtSecret).toBe(SECRET);
  });

  it('generates a development secret once per DATA_DIR and keeps it', () => {
    const dataDir = freshDataDir();
    const first = loadConfig({ DATA_DIR: dataDir }).jwtSecret;
    expect(Buffer.byteLength(first)).toBeGreaterThanOrEqual(32);
    expect(loadConfig({ DATA_DIR: dataDir }).jwtSecret).toBe(first);
    expect(readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim()).toBe(first);
    expect(loadConfig({ DATA_DIR: freshDataDir() }).jwtSecret).not.toBe(first);
  });

  it('reads the database role settings: owner URL for migrations, privileged service role refused by default', () => {
    const defaults = loadConfig({ DATA_DIR: freshDataDir(), JWT_SECRET: SECRET });
    expect({ owner: defaults.databaseOwnerUrl, allow: defaults.databaseAllowPrivileged }).toEqual({
      owner: undefined,
      allow: false,
    });
    const set = loadConfig({
      DATA_DIR: freshDataDir(),
      JWT_SECRET: SECRET,
      DATABASE_OWNER_URL: 'postgres://owner:pw@db:5432/payments',
      DATABASE_ALLOW_PRIVILEGED: 'true',
    });
    expect({ owner: set.databaseOwnerUrl, allow: set.databaseAllowPrivileged }).toEqual({
      owner: 'postgres://owner:pw@db:5432/payments',
      allow: true,
    });
    expect(problemsOf({ DATABASE_OWNER_URL: 'mysql://x@y/z' })).toEqual([
      'DATABASE_OWNER_URL must use postgres: or postgresql:, got "mysql:"',
    ]);
  });

  it('caps open payment requests per payee (100) and QR cache memory (16 MiB) by default, validated at boot', () => {
    const defaults = loadConfig({ DATA_DIR: freshDataDir(), JWT_SECRET: SECRET });
    expect({ open: defaults.paymentRequestsOpenMax, cache: defaults.qrCacheMaxBytes }).toEqual({
      open: 100,
      cache: 16 * 1024 * 1024,
    });
    const set = loadConfig({
      DATA_DIR: freshDataDir(),
      JWT_SECRET: SECRET,
      PAYMENT_REQUESTS_OPEN_MAX: '5',
      QR_CACHE_MAX_BYTES: '0',
    });
    expect({ open: set.paymentRequestsOpenMax, cache: set.qrCacheMaxBytes }).toEqual({ open: 5, cache: 0 });
    expect(problemsOf({ PAYMENT_REQUESTS_OPEN_MAX: '0', QR_CACHE_MAX_BYTES: 'lots' })).toEqual([
      'PAYMENT_REQUESTS_OPEN_MAX must be between 1 and 100000, got 0',
      'QR_CACHE_MAX_BYTES must be an integer, got "lots"',
    ]);
  });

  it('reads BACKUP_DIR as an absolute path, unset by default (no archiving)', () => {
    expect(loadConfig({ DATA_DIR: freshDataDir(), JWT_SECRET: SECRET }).backupDir).toBeUndefined();
    expect(loadConfig({ DATA_DIR: freshDataDir(), JWT_SECRET: SECRET, BACKUP_DIR: ' ' }).backupDir).toBeUndefined();
    const config = loadConfig({ DATA_DIR: freshDataDir(), JWT_SECRET: SECRET, BACKUP_DIR: 'backups' });
    expect(config.backupDir).toBe(join(process.cwd(), 'backups'));
  });

  it('audits the ledger hourly by default; LEDGER_AUDIT_INTERVAL_MINUTES=0 turns it off, a negative one is refused', () => {
    expect(loadConfig({ DATA_DIR: freshDataDir(), JWT_SECRET: SECRET }).ledgerAuditIntervalMinutes).toBe(60);
    const off = loadConfig({ DATA_DIR: freshDataDir(), JWT_SECRET: SECRET, LEDGER_AUDIT_INTERVAL_MINUTES: '0' });
    expect(off.ledgerAuditIntervalMinutes).toBe(0);
    expect(problemsOf({ LEDGER_AUDIT_INTERVAL_MINUTES: '-1' })).toEqual([
      expect.stringContaining('LEDGER_AUDIT_INTERVAL_MINUTES'),
    ]);
  });
});

describe('one setting alone, for a command-line tool', () => {
  it('reads RETENTION_YEARS and OUTBOX_RETENTION_DAYS as loadConfig does, defaults included', () => {
    expect([retentionYears({}), outboxRetentionDays({})]).toEqual([8, 7]);
    expect([retentionYears({ RETENTION_YEARS: '10' }), outboxRetentionDays({ OUTBOX_RETENTION_DAYS: '3' })]).toEqual([
      10, 3,
    ]);
    expect(() => outboxRetentionDays({ OUTBOX_RETENTION_DAYS: '0' })).toThrow(ConfigError);
    expect(() => retentionYears({ RETENTION_YEARS: 'eight' })).toThrow(ConfigError);
  });
});
