import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { ClientBase, Pool } from 'pg';
import { ROLE_ADMIN, ROLE_USER } from '../access/authenticated-user';
import { AppConfig } from '../config/app-config';
import { DatabaseOutages } from '../common/errors/database-outages';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';
import { recordAdminAction } from '../limits/admin-actions.repository';
import { UsersRepository } from '../users/users.repository';
import { RoleGrantsRepository } from './role-grants.repository';

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
    private readonly users: UsersRepository,
    private readonly grants: RoleGrantsRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.adminBootstrap === 'at-boot' && this.config.adminUpiIds.size > 0) {
      this.bootstrapAdmins = new Set(await this.users.findUserReferenceIdsByUpiIds([...this.config.adminUpiIds]));
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
    return (await this.grants.hasRole(account.referenceId, ROLE_ADMIN)) ? USER_AND_ADMIN : USER_ONLY;
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
    const result = await inTransaction(this.pool, (client) => setRoleIn(client, account, role, granted, actor));
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
    this.admins = new Set(await this.grants.findReferenceIdsWithRole(ROLE_ADMIN));
    this.lastRefreshedAt = startedAt;
  }
}

/** The grant and its history row in one transaction; the account row is locked so two admins do not race. */
export async function setRoleIn(
  db: ClientBase,
  account: { referenceId?: string; upiId?: string },
  role: string,
  granted: boolean,
  actor: string,
): Promise<{ outcome: GrantOutcome; upiId: string; referenceId: string } | undefined> {
  const user = await UsersRepository.lockUserByReferenceOrUpiId(db, account);
  if (!user) return undefined;
  const changed = granted
    ? await RoleGrantsRepository.grant(db, user.id, role, actor)
    : await RoleGrantsRepository.revoke(db, user.id, role);
  const outcome: GrantOutcome = !changed ? 'unchanged' : granted ? 'granted' : 'revoked';
  if (outcome !== 'unchanged') {
    const action = granted ? 'GRANT_ROLE' : 'REVOKE_ROLE';
    await RoleGrantsRepository.recordEvent(db, { userId: user.id, role, action, actor });
    await recordAdminAction(db, { userId: user.id, action, adminUpiId: actor, reason: null, details: { role } });
  }
  return { outcome, upiId: user.upiId, referenceId: user.referenceId };
}
