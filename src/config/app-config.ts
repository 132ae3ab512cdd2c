import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Typed, validated configuration: read from the environment once, at boot. */
export class AppConfig {
  readonly nodeEnv: string;
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly databaseRestartWindowMs: number;
  readonly dbPoolSize: number;
  readonly jwtSecret: string;
  readonly jwtExpirationMs: number;
  readonly adminUpiIds: ReadonlySet<string>;
  readonly rateLimitPerSecond: number;
  /** Where the per-user transfer counters live: this process, or PostgreSQL (shared by every instance). */
  readonly rateLimitStore: 'memory' | 'postgres';
  readonly idempotencyTtlHours: number;
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
  // PIN login, lockout and opening balances (README "Security").
  readonly authPinRequired: boolean;
  readonly loginMaxFailedAttempts: number;
  readonly loginLockoutSeconds: number;
  readonly loginRateLimitPerMinute: number;
  /** A decimal string with at most 4 places, compared exactly (big.js) at registration. */
  readonly openingBalanceMax: string;
  // Group commit of transfers (docs/decisions.md "Group commit").
  /** The most transfers one database call carries. */
  readonly transferBatchMaxSize: number;
  /** Batch calls in flight at once; transfers arriving while all are busy form the next batch. */
  readonly transferBatchesInFlight: number;

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
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates every variable; collects all problems so one boot shows them all. */
export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  const reader = new EnvReader(env, problems);

  const nodeEnv = reader.string('NODE_ENV', 'development');
  const dataDir = resolve(reader.string('DATA_DIR', './.data'));
  const databaseUrl = reader.optionalUrl('DATABASE_URL', ['postgres:', 'postgresql:']);
  const config = {
    nodeEnv,
    port: reader.integer('PORT', 8080, 0, 65535),
    host: reader.string('HOST', '0.0.0.0').trim(),
    databaseUrl,
    dataDir,
    databaseRestartWindowMs: reader.integer('DATABASE_RESTART_WINDOW_MS', 60_000, 1000, 3_600_000),
    dbPoolSize: reader.integer('DB_POOL_SIZE', 20, 1, 500),
    jwtSecret: '',
    jwtExpirationMs: reader.integer('JWT_EXPIRATION_MS', 3_600_000, 1000, 31 * 24 * 3_600_000),
    adminUpiIds: new Set(
      reader
        .string('ADMIN_UPI_IDS', '')
        .split(',')
        .map((id) => id.trim().toLowerCase())
        .filter((id) => id.length > 0),
    ),
    rateLimitPerSecond: reader.integer('RATE_LIMIT_PER_SECOND', 10, 1, 1_000_000),
    rateLimitStore: reader.oneOf('RATE_LIMIT_STORE', 'memory', ['memory', 'postgres']) as 'memory' | 'postgres',
    idempotencyTtlHours: reader.integer('IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 365),
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
    authPinRequired: reader.boolean('AUTH_PIN_REQUIRED', false),
    loginMaxFailedAttempts: reader.integer('LOGIN_MAX_FAILED_ATTEMPTS', 5, 1, 1000),
    loginLockoutSeconds: reader.integer('LOGIN_LOCKOUT_SECONDS', 900, 1, 30 * 86_400),
    loginRateLimitPerMinute: reader.integer('LOGIN_RATE_LIMIT_PER_MINUTE', 0, 0, 1_000_000),
    openingBalanceMax: reader.decimal('OPENING_BALANCE_MAX', '1000000000000000'),
    transferBatchMaxSize: reader.integer('TRANSFER_BATCH_MAX_SIZE', 64, 1, 1000),
    transferBatchesInFlight: reader.integer('TRANSFER_BATCHES_IN_FLIGHT', 2, 1, 100),
  };
  config.jwtSecret = resolveJwtSecret(env.JWT_SECRET, nodeEnv, dataDir, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return new AppConfig(config);
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
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
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

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    this.problems.push(`${name} must be true or false, got "${this.env[name]}"`);
    return fallback;
  }

  oneOf(name: string, fallback: string, allowed: string[]): string {
    const value = this.string(name, fallback).toLowerCase();
    if (!allowed.includes(value)) this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value;
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
