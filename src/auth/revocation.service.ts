import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DatabaseOutages } from '../common/errors/database-outages';
import { RevocationsRepository } from './revocations.repository';
import { issuedAtMs } from './token-id';

/** How often each instance reads revocations made elsewhere. */
export const REVOCATION_REFRESH_MS = 1000;
/** Past this age the copy is not trusted: each token is then looked up in PostgreSQL until a refresh succeeds. */
export const REVOCATION_MAX_STALENESS_MS = 5000;
// Rows are read again for this long after their commit, so that one committed just behind a read is not missed.
const OVERLAP_SECONDS = 5;

export interface PresentedToken {
  upiId: string;
  jti: string;
  expiresAtMs: number;
}

/**
 * Revoked tokens, checked in memory on every request: a per-instance copy of two tables,
 * refreshed from PostgreSQL every second. A logout takes effect at once on the instance that
 * served it and within REVOCATION_REFRESH_MS (+ one query) on the others.
 */
@Injectable()
export class RevocationService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RevocationService.name);
  private readonly revokedTokens = new Map<string, number>();
  /** lower(upiId) -> every token issued up to this time (ms) is refused. */
  private readonly revokedBefore = new Map<string, { at: number; expiresAtMs: number }>();
  private lastRefreshedAt = 0;
  private watermark: Date | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly revocations: RevocationsRepository,
    private readonly config: AppConfig,
    private readonly outages: DatabaseOutages,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refreshSafely(), REVOCATION_REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * From memory in the common case. When the copy is older than the bound (refreshes failing or
   * starved under load) the token is looked up in PostgreSQL instead, so a revocation is never
   * missed for longer than REVOCATION_MAX_STALENESS_MS; a database failure then surfaces as such.
   */
  async isRevoked(upiId: string, jti: string, now = Date.now()): Promise<boolean> {
    if (now - this.lastRefreshedAt <= REVOCATION_MAX_STALENESS_MS) return this.isRevokedInMemory(upiId, jti);
    void this.refreshSafely();
    return this.isRevokedInDatabase(upiId, jti);
  }

  private isRevokedInMemory(upiId: string, jti: string): boolean {
    if (this.revokedTokens.has(jti)) return true;
    const cutoff = this.revokedBefore.get(upiId.toLowerCase());
    return cutoff !== undefined && this.issuedBefore(jti, cutoff.at);
  }

  private async isRevokedInDatabase(upiId: string, jti: string): Promise<boolean> {
    const row = await this.revocations.find(jti, upiId);
    return row.token || (row.cutoffMs !== null && this.issuedBefore(jti, row.cutoffMs));
  }

  private issuedBefore(jti: string, cutoffMs: number): boolean {
    const issued = issuedAtMs(jti);
    return issued === undefined || issued <= cutoffMs;
  }

  async revokeToken(token: PresentedToken): Promise<void> {
    await this.revocations.insertToken(token.jti, token.upiId, token.expiresAtMs);
    this.revokedTokens.set(token.jti, token.expiresAtMs);
  }

  /** Every token of the user issued up to now, on every device. */
  async revokeAll(upiId: string, now = Date.now()): Promise<void> {
    const expiresAtMs = now + this.config.jwtExpirationMs;
    await this.revocations.upsertUserCutoff(upiId, now, expiresAtMs);
    this.rememberCutoff(upiId.toLowerCase(), now, expiresAtMs);
  }

  private async refreshSafely(): Promise<void> {
    if (this.refreshing) return;
    try {
      await this.refresh();
    } catch (error) {
      if (!this.outages.absorbs('revocation-refresh', error)) {
        this.logger.warn(`Revocation refresh failed: ${(error as Error).message}`);
      }
    }
  }

  /** Reads what changed since the last read (everything unexpired on the first). One at a time. */
  refresh(): Promise<void> {
    this.refreshing ??= this.readChanges().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async readChanges(): Promise<void> {
    const startedAt = Date.now();
    const since = this.watermark ?? new Date(0);
    const { now, tokens, users } = await this.revocations.changedSince(since, OVERLAP_SECONDS);
    for (const row of tokens) this.revokedTokens.set(row.jti, row.expiresMs);
    for (const row of users) this.rememberCutoff(row.upiId, row.atMs, row.expiresMs);
    this.forgetExpired(startedAt);
    this.watermark = now;
    this.lastRefreshedAt = startedAt;
  }

  private rememberCutoff(upiId: string, at: number, expiresAtMs: number): void {
    const current = this.revokedBefore.get(upiId);
    if (!current || current.at < at) this.revokedBefore.set(upiId, { at, expiresAtMs });
  }

  private forgetExpired(now: number): void {
    for (const [jti, expiresAtMs] of this.revokedTokens) if (expiresAtMs <= now) this.revokedTokens.delete(jti);
    for (const [upiId, cutoff] of this.revokedBefore) if (cutoff.expiresAtMs <= now) this.revokedBefore.delete(upiId);
  }
}
