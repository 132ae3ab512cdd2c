import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { ROLE_ADMIN, ROLE_USER } from '../access/authenticated-user';
import { AppConfig } from '../config/app-config';
import { DatabaseOutages } from '../common/errors/database-outages';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';
import { recordAdminAction } from '../limits/admin-actions';

/** How often each instance reads the grants made elsewhere (the bound for a revocation in docs/security.md, "Admin grants"). */
export const GRANTS_REFRESH_MS = 1000;
/** Past this age the copy is not trusted: each caller's grant is then read from PostgreSQL. */
export const GRANTS_MAX_STALENESS_MS = 5000;

const USER_ONLY: readonly string[] = Object.freeze([ROLE_USER]);
const USER_AND_ADMIN: readonly string[] = Object.freeze([ROLE_USER, ROLE_ADMIN]);

export interface Account {
  upiId: string;
  referenceId: string;
}

/** One SQL statement's rows: pg's client.query(...).rows, on the service's pool or the admin CLI's client. */
export type Query = (sql: string, params: unknown[]) => Promise<unknown[]>;

export type GrantOutcome = 'granted' | 'revoked' | 'unchanged';

/**
 * Roles come from the grants in PostgreSQL, read on every request (not from the token): a
 * per-instance copy of the few admin grants, refreshed every second, as revocations are. The
 * development bootstrap (ADMIN_UPI_IDS, refused in production) is not stored: removing an ID
 * from the list and restarting takes the role away. With ADMIN_BOOTSTRAP=at-boot a listed ID
 * counts only if it was registered before this process started, so nobody can claim the role by
 * registering a listed ID first.
 */
@Injectable()
export class RoleGrantsService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RoleGrantsService.name);
  /** referenceId of every account holding a ROLE_ADMIN grant. */
  private admins = new Set<string>();
  private bootstrapAdmins = new Set<string>();
  private lastRefreshedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly config: AppConfig,
    private readonly outages: DatabaseOutages,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.adminBootstrap === 'at-boot' && this.config.adminUpiIds.size > 0) {
      const { rows } = await this.pool.query<{ reference_id: string }>(
        `SELECT reference_id FROM users WHERE kind = 'USER' AND lower(upi_id) = ANY($1::text[])`,
        [[...this.config.adminUpiIds]],
      );
      this.bootstrapAdmins = new Set(rows.map((row) => row.reference_id));
    }
    await this.refresh();
    this.timer = setInterval(() => void this.refreshSafely(), GRANTS_REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** The account's roles now: from memory while the copy is fresh, else from PostgreSQL. */
  async rolesOf(account: Account, now = Date.now()): Promise<readonly string[]> {
    if (this.isBootstrapAdmin(account)) return USER_AND_ADMIN;
    if (now - this.lastRefreshedAt <= GRANTS_MAX_STALENESS_MS) {
      return this.admins.has(account.referenceId) ? USER_AND_ADMIN : USER_ONLY;
    }
    void this.refreshSafely();
    const { rows } = await this.pool.query<{ admin: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM role_grants g JOIN users u ON u.id = g.user_id
                      WHERE u.reference_id = $1 AND g.role = $2) AS admin`,
      [account.referenceId, ROLE_ADMIN],
    );
    return rows[0].admin ? USER_AND_ADMIN : USER_ONLY;
  }

  private isBootstrapAdmin(account: Account): boolean {
    if (this.config.adminBootstrap === 'at-boot') return this.bootstrapAdmins.has(account.referenceId);
    return this.config.adminUpiIds.has(account.upiId.toLowerCase());
  }

  /**
   * Grants or revokes a role on an existing account, recording who and when; takes effect on this
   * instance at once and on the others within GRANTS_REFRESH_MS. Undefined: no such account.
   */
  async setRole(
    account: { referenceId?: string; upiId?: string },
    role: string,
    granted: boolean,
    actor: string,
  ): Promise<{ outcome: GrantOutcome; upiId: string; referenceId: string } | undefined> {
    const result = await inTransaction(this.pool, (client) =>
      setRoleIn(async (sql, params) => (await client.query(sql, params)).rows, account, role, granted, actor),
    );
    if (result) await this.refresh();
    return result;
  }

  private async refreshSafely(): Promise<void> {
    try {
      await this.refresh();
    } catch (error) {
      if (!this.outages.absorbs('role-grants-refresh', error)) {
        this.logger.warn(`Role grants refresh failed: ${(error as Error).message}`);
      }
    }
  }

  /** One at a time; the whole set (admins are few). */
  refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async read(): Promise<void> {
    const startedAt = Date.now();
    const { rows } = await this.pool.query<{ reference_id: string }>(
      `SELECT u.reference_id FROM role_grants g JOIN users u ON u.id = g.user_id WHERE g.role = $1`,
      [ROLE_ADMIN],
    );
    this.admins = new Set(rows.map((row) => row.reference_id));
    this.lastRefreshedAt = startedAt;
  }
}

/** The grant and its history row in one transaction; the account row is locked so two admins do not race. */
export async function setRoleIn(
  query: Query,
  account: { referenceId?: string; upiId?: string },
  role: string,
  granted: boolean,
  actor: string,
): Promise<{ outcome: GrantOutcome; upiId: string; referenceId: string } | undefined> {
  const [user] = (await query(
    `SELECT id, upi_id, reference_id FROM users
     WHERE kind = 'USER' AND (reference_id::text = $1 OR lower(upi_id) = lower($2)) FOR UPDATE`,
    [account.referenceId ?? '', account.upiId ?? ''],
  )) as { id: string; upi_id: string; reference_id: string }[];
  if (!user) return undefined;
  // A CTE so both statements answer with a count row (a bare INSERT and DELETE report it differently).
  const [{ changed }] = (await query(
    granted
      ? `WITH c AS (INSERT INTO role_grants (user_id, role, granted_by) VALUES ($1, $2, $3)
                    ON CONFLICT DO NOTHING RETURNING 1) SELECT count(*)::int AS changed FROM c`
      : `WITH c AS (DELETE FROM role_grants WHERE user_id = $1 AND role = $2 AND $3::text IS NOT NULL
                    RETURNING 1) SELECT count(*)::int AS changed FROM c`,
    [user.id, role, actor],
  )) as { changed: number }[];
  const outcome: GrantOutcome = changed === 0 ? 'unchanged' : granted ? 'granted' : 'revoked';
  if (outcome !== 'unchanged') {
    await query(`INSERT INTO role_grant_events (user_id, role, action, actor) VALUES ($1, $2, $3, $4)`, [
      user.id,
      role,
      granted ? 'GRANT_ROLE' : 'REVOKE_ROLE',
      actor,
    ]);
    await recordAdminAction(query, {
      userId: user.id,
      action: granted ? 'GRANT_ROLE' : 'REVOKE_ROLE',
      adminUpiId: actor,
      reason: null,
      details: { role },
    });
  }
  return { outcome, upiId: user.upi_id, referenceId: user.reference_id };
}
