import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { BUSINESS_TIME_ZONE_DEFAULT, businessTimeZoneProblem } from './business-time-zone';
import { parseDatabaseUrl } from './database-url';
import { privateDirectoryProblem, readOrCreateSecret } from './private-files';

/** Typed, validated configuration: read from the environment once, at boot. */
export class AppConfig {
  readonly nodeEnv: string;
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Barman's home for `npm run backup`, and where the embedded database archives its WAL; unset: no archiving. */
  readonly backupDir: string | undefined;
  readonly databaseRestartWindowMs: number;
  /** Each statement's bound on the serving pool (statement_timeout; the client gives up 1 s later): a 503 after it. */
  readonly databaseQueryTimeoutMs: number;
  readonly dbPoolSize: number;
  readonly jwtSecret: string;
  readonly jwtExpirationMs: number;
  readonly adminUpiIds: ReadonlySet<string>;
  readonly rateLimitPerSecond: number;
  /** Where the per-user transfer counters live: this process, or PostgreSQL (shared by every instance). */
  readonly rateLimitStore: 'memory' | 'postgres';
  readonly idempotencyTtlHours: number;
  /** Money records younger than this are never archived or dropped (Companies Act: 8 financial years). */
  readonly retentionYears: number;
  /** Published outbox events older than this go with their daily partition. */
  readonly outboxRetentionDays: number;
  /** Finished webhook deliveries older than this go with their daily partition. */
  readonly webhookDeliveryRetentionDays: number;
  /** Minutes between the periodic whole-ledger audits of each instance; 0: none (src/audit/audit-metrics.ts). */
  readonly ledgerAuditIntervalMinutes: number;
  readonly kafkaBrokers: string[];
  readonly kafkaTopic: string;
  readonly kafkaReplicationFactor: number;
  readonly upiVerificationUrl: string | undefined;
  readonly upiVerificationTimeoutMs: number;
  readonly upiVerificationCacheTtlMs: number;
  readonly upiCircuitThreshold: number;
  readonly upiCircuitHalfOpenMs: number;
  readonly insightsEnabled: boolean;
  readonly aiBaseUrl: string | undefined;
  readonly aiApiKey: string | undefined;
  readonly aiModel: string;
  readonly aiTimeoutMs: number;
  readonly aiCircuitThreshold: number;
  readonly aiCircuitHalfOpenMs: number;
  readonly errorsBaseUrl: string;
  readonly logLevel: string;
  // PIN login, lockout and opening balances (docs/security.md).
  readonly authPinRequired: boolean;
  readonly loginMaxFailedAttempts: number;
  readonly loginLockoutSeconds: number;
  readonly loginRateLimitPerMinute: number;
  /** A decimal string with at most 4 places, compared exactly (big.js) at registration. */
  readonly openingBalanceMax: string;
  // Security round (docs/security.md): who is admin, where clients really are, what login may cost.
  /** `any-time`: a listed ID is admin whenever it registers (development); `at-boot`: only if registered before start. */
  readonly adminBootstrap: 'any-time' | 'at-boot';
  /** Fastify's trustProxy: false (trust nobody), a hop count, or the trusted proxies' addresses and CIDRs. */
  readonly trustProxy: false | number | string[];
  readonly registrationRateLimitPerMinute: number;
  /** What /actuator links start with; unset: the address the service listens on, never a request header. */
  readonly publicBaseUrl: string | undefined;
  // Webhooks (docs/api-guide.md "Webhooks", docs/architecture.md "Webhook delivery").
  /** Development only: http:// webhook URLs. */
  readonly webhookAllowHttp: boolean;
  /** Development and tests only: webhook hosts on loopback, private and link-local addresses. */
  readonly webhookAllowPrivateNetworks: boolean;
  /** Delays between delivery attempts, in ms: one attempt more than there are delays, then FAILED. */
  readonly webhookRetryScheduleMs: number[];
  readonly webhookTimeoutMs: number;
  /** The most webhook endpoints the service keeps: each one is an outbound request per subscribed event. */
  readonly webhookEndpointsMax: number;
  /**
   * The floor of deliveries per second per instance while transfers arrive in batches (the money path's
   * peak): deliveries that keep arriving faster are sent faster (src/webhooks/peak-delivery-budget.ts); 0: no limit.
   */
  readonly webhookPeakDeliveriesPerSecond: number;
  // Database roles (docs/security.md, docs/database-roles.md).
  /** The owner role's URL: migrations run with it at boot. Unset: with DATABASE_URL. */
  readonly databaseOwnerUrl: string | undefined;
  /** Lets an external DATABASE_URL that is a superuser or owns the tables start under NODE_ENV=production. */
  readonly databaseAllowPrivileged: boolean;
  // Group commit of transfers (docs/decisions/0009-group-commit.md).
  /** The most transfers one database call carries. */
  readonly transferBatchMaxSize: number;
  /** Batch calls in flight at once; transfers arriving while all are busy form the next batch. */
  readonly transferBatchesInFlight: number;
  // Limits and account controls (docs/api-guide.md "Limits and account controls").
  /** IANA zone whose calendar days the daily limits count. */
  readonly businessTimeZone: string;
  readonly limitsProfile: 'none' | 'npci';
  /** Decimal texts with at most 4 places; undefined: the limit does not apply. */
  readonly transferAmountMax: string;
  readonly transferDailyAmountMax: string | undefined;
  readonly transferDailyCountMax: number | undefined;
  readonly newUserPeriodHours: number;
  readonly newUserAmountMax: string | undefined;
  // Scheduled transfers (docs/api-guide.md "Scheduled transfers").
  /** Live (ACTIVE or PAUSED) standing instructions one sender may have. */
  readonly scheduledTransfersMaxPerUser: number;
  // Payment requests (docs/security.md "QR codes and payment requests").
  /** OPEN, unexpired requests one payee may hold; the next creation is 422 payment-request-limit-reached. */
  readonly paymentRequestsOpenMax: number;
  /** Memory for rendered QR codes, in bytes, shared by every request; 0 renders every fetch afresh. */
  readonly qrCacheMaxBytes: number;
  /** Longest hold a payer may place, in seconds (src/holds); a longer expiresInSeconds is 422. */
  readonly holdMaxSeconds: number;
  // Disputes (docs/api-guide.md "Disputes"); each read in its documented unit, kept in seconds.
  /** How long after a transfer its payer may raise a dispute (DISPUTE_WINDOW_DAYS). */
  readonly disputeWindowSeconds: number;
  /** How long the payee has to answer before the dispute escalates (DISPUTE_RESPONSE_HOURS). */
  readonly disputeResponseSeconds: number;
  /** Turnaround of an escalated dispute; later it is overdue (DISPUTE_RESOLUTION_DAYS). */
  readonly disputeResolutionSeconds: number;

  constructor(values: AppConfig) {
    Object.assign(this, values);
  }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;
const DURATION_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const HOUR_SECONDS = 3600;
const DAY_SECONDS = 24 * HOUR_SECONDS;
/** The longest dispute duration a setting may give: ten years, whatever its unit. */
const MAX_DISPUTE_SECONDS = 10 * 366 * DAY_SECONDS;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates every variable; collects all problems so one boot shows them all. */
export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  const reader = new EnvReader(env, problems);

  const nodeEnv = reader.string('NODE_ENV', 'development');
  const production = nodeEnv === 'production';
  const dataDir = resolve(reader.string('DATA_DIR', './.data'));
  const databaseUrl = reader.databaseUrl('DATABASE_URL');
  const config = {
    nodeEnv,
    port: reader.integer('PORT', 8080, 0, 65535),
    host: reader.string('HOST', '0.0.0.0').trim(),
    databaseUrl,
    dataDir,
    backupDir: env.BACKUP_DIR?.trim() ? resolve(env.BACKUP_DIR.trim()) : undefined,
    databaseRestartWindowMs: reader.integer('DATABASE_RESTART_WINDOW_MS', 60_000, 1000, 3_600_000),
    databaseQueryTimeoutMs: reader.integer('DATABASE_QUERY_TIMEOUT_MS', 10_000, 100, 3_600_000),
    dbPoolSize: reader.integer('DB_POOL_SIZE', 20, 1, 500),
    jwtSecret: '',
    jwtExpirationMs: reader.integer('JWT_EXPIRATION_MS', 3_600_000, 1000, 31 * 24 * 3_600_000),
    adminUpiIds: adminUpiIds(reader, production, problems),
    rateLimitPerSecond: reader.integer('RATE_LIMIT_PER_SECOND', 10, 1, 1_000_000),
    rateLimitStore: reader.oneOf('RATE_LIMIT_STORE', 'memory', ['memory', 'postgres']) as 'memory' | 'postgres',
    idempotencyTtlHours: reader.integer('IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 365),
    retentionYears: readRetentionYears(reader),
    outboxRetentionDays: readOutboxRetentionDays(reader),
    webhookDeliveryRetentionDays: reader.integer('WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 3650),
    ledgerAuditIntervalMinutes: reader.integer('LEDGER_AUDIT_INTERVAL_MINUTES', 60, 0, 7 * 24 * 60),
    kafkaBrokers: reader
      .string('KAFKA_BROKERS', '')
      .split(',')
      .map((b) => b.trim())
      .filter((b) => b.length > 0),
    kafkaTopic: reader.string('KAFKA_TOPIC', 'payments.transfer-completed'),
    kafkaReplicationFactor: reader.integer('KAFKA_REPLICATION_FACTOR', 1, 1, 15),
    upiVerificationUrl: reader.optionalUrl('UPI_VERIFICATION_URL', ['http:', 'https:']),
    upiVerificationTimeoutMs: reader.integer('UPI_VERIFICATION_TIMEOUT_MS', 2000, 1, 120_000),
    upiVerificationCacheTtlMs: reader.integer('UPI_VERIFICATION_CACHE_TTL_MS', 300_000, 0, 86_400_000),
    upiCircuitThreshold: reader.integer('UPI_VERIFICATION_CIRCUIT_THRESHOLD', 5, 1, 1000),
    upiCircuitHalfOpenMs: reader.integer('UPI_VERIFICATION_CIRCUIT_HALF_OPEN_MS', 30_000, 10, 3_600_000),
    insightsEnabled: reader.boolean('INSIGHTS_ENABLED', true),
    aiBaseUrl: reader.optionalUrl('AI_BASE_URL', ['http:', 'https:']),
    aiApiKey: env.AI_API_KEY || undefined,
    aiModel: reader.string('AI_MODEL', 'gpt-4o-mini'),
    aiTimeoutMs: reader.integer('AI_TIMEOUT_MS', 3000, 1, 120_000),
    aiCircuitThreshold: reader.integer('AI_CIRCUIT_THRESHOLD', 5, 1, 1000),
    aiCircuitHalfOpenMs: reader.integer('AI_CIRCUIT_HALF_OPEN_MS', 30_000, 10, 3_600_000),
    errorsBaseUrl: reader.string('ERRORS_BASE_URL', 'https://errors.payments.local').replace(/\/+$/, ''),
    logLevel: reader.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    // The production profile is safe by default: money enters by deposits, every login needs a PIN.
    authPinRequired: reader.boolean('AUTH_PIN_REQUIRED', production),
    loginMaxFailedAttempts: reader.integer('LOGIN_MAX_FAILED_ATTEMPTS', 5, 1, 1000),
    loginLockoutSeconds: reader.integer('LOGIN_LOCKOUT_SECONDS', 900, 1, 30 * 86_400),
    loginRateLimitPerMinute: reader.integer('LOGIN_RATE_LIMIT_PER_MINUTE', production ? 60 : 0, 0, 1_000_000),
    openingBalanceMax: reader.decimal('OPENING_BALANCE_MAX', production ? '0' : '1000000000000000'),
    adminBootstrap: reader.oneOf('ADMIN_BOOTSTRAP', 'any-time', ['any-time', 'at-boot']) as 'any-time' | 'at-boot',
    trustProxy: trustProxy(env.TRUST_PROXY, problems),
    registrationRateLimitPerMinute: reader.integer(
      'REGISTRATION_RATE_LIMIT_PER_MINUTE',
      production ? 10 : 0,
      0,
      1_000_000,
    ),
    publicBaseUrl: reader.optionalUrl('PUBLIC_BASE_URL', ['http:', 'https:']),
    webhookAllowHttp: reader.boolean('WEBHOOK_ALLOW_HTTP', false),
    webhookAllowPrivateNetworks: reader.boolean('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    webhookRetryScheduleMs: reader.durations('WEBHOOK_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,10h'),
    webhookTimeoutMs: reader.integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookEndpointsMax: reader.integer('WEBHOOK_ENDPOINTS_MAX', 50, 1, 10_000),
    webhookPeakDeliveriesPerSecond: reader.integer('WEBHOOK_PEAK_DELIVERIES_PER_SECOND', 100, 0, 1_000_000),
    databaseOwnerUrl: reader.databaseUrl('DATABASE_OWNER_URL'),
    databaseAllowPrivileged: reader.boolean('DATABASE_ALLOW_PRIVILEGED', false),
    transferBatchMaxSize: reader.integer('TRANSFER_BATCH_MAX_SIZE', 64, 1, 1000),
    transferBatchesInFlight: reader.integer('TRANSFER_BATCHES_IN_FLIGHT', 1, 1, 100),
    scheduledTransfersMaxPerUser: reader.integer('SCHEDULED_TRANSFERS_MAX_PER_USER', 100, 1, 100_000),
    ...limitsConfig(reader, env, problems),
    paymentRequestsOpenMax: reader.integer('PAYMENT_REQUESTS_OPEN_MAX', 100, 1, 100_000),
    qrCacheMaxBytes: reader.integer('QR_CACHE_MAX_BYTES', 16 * 1024 * 1024, 0, 1024 * 1024 * 1024),
    holdMaxSeconds: reader.integer('HOLD_MAX_SECONDS', 2_592_000, 60, 31_536_000),
    disputeWindowSeconds: reader.decimalDuration('DISPUTE_WINDOW_DAYS', '45', DAY_SECONDS),
    disputeResponseSeconds: reader.decimalDuration('DISPUTE_RESPONSE_HOURS', '48', HOUR_SECONDS),
    disputeResolutionSeconds: reader.decimalDuration('DISPUTE_RESOLUTION_DAYS', '30', DAY_SECONDS),
  };
  // DATA_DIR matters only when it holds something: the embedded database or the generated JWT secret.
  const dataDirProblem = !databaseUrl || !env.JWT_SECRET ? privateDirectoryProblem(dataDir) : undefined;
  if (dataDirProblem) problems.push(`DATA_DIR: ${dataDirProblem}`);
  // A secret file in a directory that others can write is not read at all.
  if (!dataDirProblem || env.JWT_SECRET)
    config.jwtSecret = resolveJwtSecret(env.JWT_SECRET, nodeEnv, dataDir, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return new AppConfig(config);
}

/** LIMITS_PROFILE and its limits: `npci` sets NPCI's P2P limits, each variable overrides one. */
function limitsConfig(reader: EnvReader, env: Env, problems: string[]) {
  const profile = reader.oneOf('LIMITS_PROFILE', 'none', ['none', 'npci']) as 'none' | 'npci';
  const npci = profile === 'npci';
  const businessTimeZone = reader.string('BUSINESS_TIME_ZONE', BUSINESS_TIME_ZONE_DEFAULT).trim();
  const zoneProblem = businessTimeZoneProblem(businessTimeZone);
  if (zoneProblem) problems.push(zoneProblem);
  const optionalDecimal = (name: string, fallback: string | undefined) =>
    env[name]?.trim() ? reader.decimal(name, '0') : fallback;
  const transferAmountMax = reader.decimal('TRANSFER_AMOUNT_MAX', npci ? '100000' : '1000000');
  if (Number(transferAmountMax) > 1_000_000 || Number(transferAmountMax) < 0.01) {
    problems.push(
      `TRANSFER_AMOUNT_MAX must be between 0.01 and 1000000 (the spec's maximum), got ${transferAmountMax}`,
    );
  }
  return {
    businessTimeZone,
    limitsProfile: profile,
    transferAmountMax,
    transferDailyAmountMax: optionalDecimal('TRANSFER_DAILY_AMOUNT_MAX', npci ? '100000' : undefined),
    transferDailyCountMax: env.TRANSFER_DAILY_COUNT_MAX?.trim()
      ? reader.integer('TRANSFER_DAILY_COUNT_MAX', 0, 0, 1_000_000)
      : npci
        ? 20
        : undefined,
    newUserPeriodHours: reader.integer('NEW_USER_PERIOD_HOURS', npci ? 24 : 0, 0, 24 * 365),
    newUserAmountMax: optionalDecimal('NEW_USER_AMOUNT_MAX', npci ? '5000' : undefined),
  };
}

/** The development bootstrap of ROLE_ADMIN; production grants admins explicitly, so a list there is refused. */
function adminUpiIds(reader: EnvReader, production: boolean, problems: string[]): Set<string> {
  const ids = reader
    .string('ADMIN_UPI_IDS', '')
    .split(',')
    .map((id) => id.trim().toLowerCase())
    .filter((id) => id.length > 0);
  if (production && ids.length > 0) {
    problems.push(
      'ADMIN_UPI_IDS is refused when NODE_ENV=production: unset it and grant admins with `npm run admin -- grant <upiId>`',
    );
  }
  return new Set(ids);
}

/** TRUST_PROXY as Fastify takes it: unset trusts nobody; a hop count; or addresses and CIDRs of the proxies. */
function trustProxy(raw: string | undefined, problems: string[]): false | number | string[] {
  const value = raw?.trim();
  if (value === undefined || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !validBits || rest.length > 0) {
      problems.push(`TRUST_PROXY must be a hop count or comma-separated IP addresses / CIDRs, got "${entry}"`);
    }
  }
  return entries;
}

/**
 * Production must bring its own secret; development gets one generated once per
 * DATA_DIR so tokens survive restarts without any set-up.
 */
function resolveJwtSecret(value: string | undefined, nodeEnv: string, dataDir: string, problems: string[]): string {
  if (value !== undefined && value !== '') {
    if (Buffer.byteLength(value) < 32) problems.push('JWT_SECRET must be at least 32 bytes long');
    return value;
  }
  if (nodeEnv === 'production') {
    problems.push('JWT_SECRET is required when NODE_ENV=production (at least 32 bytes)');
    return '';
  }
  const kept = readOrCreateSecret(join(dataDir, 'jwt-secret'));
  if ('problem' in kept) {
    problems.push(`DATA_DIR: ${kept.problem}`);
    return '';
  }
  return kept.secret;
}

const readRetentionYears = (reader: EnvReader) => reader.integer('RETENTION_YEARS', 8, 1, 100);

/** RETENTION_YEARS alone, validated as loadConfig does, for a CLI that needs nothing else (npm run archive). */
export const retentionYears = (env: Env = process.env): number => readAlone(readRetentionYears, env);

const readOutboxRetentionDays = (reader: EnvReader) => reader.integer('OUTBOX_RETENTION_DAYS', 7, 1, 3650);

/** OUTBOX_RETENTION_DAYS alone, as loadConfig reads it (the bench's seed keeps that much outbox history). */
export const outboxRetentionDays = (env: Env = process.env): number => readAlone(readOutboxRetentionDays, env);

function readAlone<T>(read: (reader: EnvReader) => T, env: Env): T {
  const problems: string[] = [];
  const value = read(new EnvReader(env, problems));
  if (problems.length > 0) throw new ConfigError(problems);
  return value;
}

class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  string(name: string, fallback: string): string {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw.trim())) {
      this.problems.push(`${name} must be an integer, got "${raw}"`);
      return fallback;
    }
    const value = Number(raw.trim());
    if (value < min || value > max) {
      this.problems.push(`${name} must be between ${min} and ${max}, got ${value}`);
    }
    return value;
  }

  /** A non-negative decimal with at most 4 places, kept as text so money never passes through a float. */
  decimal(name: string, fallback: string): string {
    const raw = this.env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d{1,15}(\.\d{1,4})?$/.test(raw)) {
      this.problems.push(
        `${name} must be a non-negative amount with at most 4 decimals (up to 15 digits), got "${raw}"`,
      );
      return fallback;
    }
    return raw;
  }

  /**
   * A positive duration in `unitSeconds` units that may have decimals (DISPUTE_RESPONSE_HOURS=0.01 is
   * 36 s, so tests can run the clock fast), in seconds, at least a millisecond.
   */
  decimalDuration(name: string, fallback: string, unitSeconds: number): number {
    const raw = this.string(name, fallback).trim();
    const seconds = /^\d{1,9}(\.\d{1,9})?$/.test(raw) ? Number(raw) * unitSeconds : NaN;
    if (!(seconds >= 0.001 && seconds <= MAX_DISPUTE_SECONDS)) {
      this.problems.push(`${name} must be a positive number (decimals allowed) up to ten years, got "${raw}"`);
      return Number(fallback) * unitSeconds;
    }
    return seconds;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    this.problems.push(`${name} must be true or false, got "${this.env[name]}"`);
    return fallback;
  }

  /** A comma-separated list of durations such as `5s,5m,2h` (units ms, s, m, h), in milliseconds. */
  durations(name: string, fallback: string): number[] {
    const parse = (text: string) => text.split(',').map((item) => /^\s*(\d{1,9})(ms|s|m|h)\s*$/.exec(item));
    const parsed = parse(this.string(name, fallback));
    if (parsed.length > 50 || parsed.some((match) => match === null)) {
      this.problems.push(`${name} must be up to 50 comma-separated durations like 5s,5m,2h (ms, s, m, h)`);
      return [];
    }
    return parsed.map((match) => Number(match![1]) * DURATION_UNIT_MS[match![2]]);
  }

  oneOf(name: string, fallback: string, allowed: string[]): string {
    const value = this.string(name, fallback).toLowerCase();
    if (!allowed.includes(value)) this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value;
  }

  /** A PostgreSQL URL, one host or several in libpq's form (src/database/database-url.ts). */
  databaseUrl(name: string): string | undefined {
    const raw = this.env[name]?.trim();
    if (raw === undefined || raw === '') return undefined;
    try {
      parseDatabaseUrl(raw);
      return raw.replace(/\/+$/, '');
    } catch (error) {
      this.problems.push(`${name} ${(error as Error).message}`);
      return undefined;
    }
  }

  optionalUrl(name: string, protocols: string[]): string | undefined {
    const raw = this.env[name];
    if (raw === undefined || raw.trim() === '') return undefined;
    try {
      const url = new URL(raw.trim());
      if (!protocols.includes(url.protocol)) {
        this.problems.push(`${name} must use ${protocols.join(' or ')}, got "${url.protocol}"`);
      }
      return raw.trim().replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} is not a valid URL`);
      return undefined;
    }
  }
}
