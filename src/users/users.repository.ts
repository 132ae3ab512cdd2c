import { Inject, Injectable } from '@nestjs/common';
import type { ClientBase, Pool, PoolClient } from 'pg';
import type { PageBounds } from '../common/paging/page';
import { PG_POOL } from '../database/pg-pool';
import { SIGNED_AMOUNT } from '../ledger/ledger-entries.repository';
import { AccountKind } from './account-kind';

export const USER_SORT_KEYS = ['userId', 'name', 'upiId', 'balance', 'createdAt'] as const;
export type UserSortKey = (typeof USER_SORT_KEYS)[number];

const SORT_COLUMNS: Record<UserSortKey, string> = {
  userId: 'u.id',
  name: 'u.name',
  upiId: 'u.upi_id',
  balance: 'u.balance',
  createdAt: 'u.created_at',
};

/** A users row as the reads return it: bigint and numeric as text. No PIN hash but for login. */
export interface UserRow {
  id: string;
  referenceId: string;
  name: string;
  upiId: string;
  phoneNumber: string;
  balance: string;
  version: number;
  kind: AccountKind;
  createdAt: Date;
  updatedAt: Date;
  pinHash?: string | null;
}

const COLUMNS = `u.id, u.reference_id AS "referenceId", u.name, u.upi_id AS "upiId", u.phone_number AS "phoneNumber",
  u.balance, u.version, u.kind, u.created_at AS "createdAt", u.updated_at AS "updatedAt"`;

const BY_REFERENCE = `SELECT ${COLUMNS} FROM users u WHERE u.reference_id = $1`;
const BY_UPI_ID = `SELECT ${COLUMNS} FROM users u WHERE lower(u.upi_id) = lower($1)`;
const FOR_LOGIN = `SELECT ${COLUMNS}, u.pin_hash AS "pinHash" FROM users u WHERE lower(u.upi_id) = lower($1)`;
const BALANCE_ABOVE = `SELECT ${COLUMNS} FROM users u WHERE u.balance > $1 AND u.kind = '${AccountKind.User}' ORDER BY u.id`;
const INSERT = `
  INSERT INTO users AS u (reference_id, name, upi_id, phone_number, balance, pin_hash)
  VALUES ($1, $2, $3, $4, $5, $6)
  RETURNING ${COLUMNS}`;

/** One query per sort key: the users (not the treasury) in that order, with their count. */
const PAGE_QUERIES = Object.fromEntries(
  USER_SORT_KEYS.map((key) => [
    key,
    `SELECT ${COLUMNS}, count(*) OVER () AS total FROM users u WHERE u.kind = '${AccountKind.User}'
     ORDER BY ${SORT_COLUMNS[key]}, u.id OFFSET $1 LIMIT $2`,
  ]),
) as Record<UserSortKey, string>;

const COUNT = `SELECT count(*) AS total FROM users u WHERE u.kind = '${AccountKind.User}'`;

// The account controls (src/limits): an account row locked for an admin's change, the freeze itself.
const USER_ID = `SELECT u.id FROM users u WHERE u.reference_id::text = $1 AND u.kind = '${AccountKind.User}'`;
// The account held as the movements hold it (src/ledger/sql/account_lock.sql), not row-locked.
const LOCK_USER = `SELECT a.id FROM (${USER_ID}) u, LATERAL account_locked(u.id) a`;
const FREEZE = `UPDATE users SET frozen_at = coalesce(frozen_at, now()), frozen_reason = $2 WHERE id = $1`;
const UNFREEZE = `UPDATE users SET frozen_at = NULL, frozen_reason = NULL WHERE id = $1`;
// Role grants (src/auth): the accounts the development bootstrap names, an account locked for a grant.
const USER_REFERENCE_IDS_BY_UPI_IDS = `SELECT reference_id FROM users WHERE kind = '${AccountKind.User}' AND lower(upi_id) = ANY($1::text[])`;
const LOCK_USER_BY_REFERENCE_OR_UPI_ID = `SELECT id, upi_id AS "upiId", reference_id AS "referenceId" FROM users
  WHERE kind = '${AccountKind.User}' AND (reference_id::text = $1 OR lower(upi_id) = lower($2)) FOR UPDATE`;
const COUNT_FROZEN = `SELECT count(*)::int AS n FROM users WHERE frozen_at IS NOT NULL`;

/** An account whose balance or head hash disagrees with its ledger entries (the audit). */
export interface BrokenAccount {
  accountId: string;
  upiId: string;
  reason: string;
  balance: string;
  /** Balance mismatch: what the entries add up to. */
  ledgerBalance?: string;
  /** Head mismatch: the hash kept on the account and the hash of its newest entry. */
  headHash?: string | null;
  newestEntryHash?: string | null;
}

// The head kept on the account row catches what no later link can: a removed newest entry. An
// archived month (npm run archive) counts through its checkpoints: each account's net movement
// over it, and its head at the cut when no live entry came after. Heads as hex, as checkpoints
// keep them (the live columns hold the bytes).
const BROKEN_ACCOUNTS = `
  WITH totals AS (
    SELECT u.id, u.upi_id, u.balance, encode(u.last_entry_hash, 'hex') AS last_entry_hash,
      coalesce(sum(${SIGNED_AMOUNT}), 0)
        + coalesce((SELECT sum(k.net) FROM ledger_checkpoints k WHERE k.user_id = u.id), 0) AS ledger,
      (SELECT x.hash FROM (
         (SELECT l2.id, encode(l2.hash, 'hex') AS hash FROM ledger_entries l2 WHERE l2.user_id = u.id
          ORDER BY l2.id DESC LIMIT 1)
         UNION ALL
         (SELECT k.last_entry_id, k.hash::text FROM ledger_checkpoints k WHERE k.user_id = u.id
          ORDER BY k.last_entry_id DESC LIMIT 1)
       ) x ORDER BY x.id DESC LIMIT 1) AS newest_hash
    FROM users u LEFT JOIN ledger_entries l ON l.user_id = u.id
    GROUP BY u.id)
  SELECT id::text AS "accountId", upi_id AS "upiId", 'balance is not credits minus debits' AS reason,
         balance::text AS balance, ledger::text AS "ledgerBalance", NULL AS "headHash", NULL AS "newestEntryHash"
  FROM totals WHERE balance <> ledger
  UNION ALL
  SELECT id::text, upi_id, 'the head hash on the account is not the hash of its newest entry',
         balance::text, NULL, last_entry_hash, newest_hash
  FROM totals WHERE last_entry_hash IS DISTINCT FROM newest_hash
  ORDER BY 1, 3`;

const ACCOUNT_TOTALS = `
  SELECT count(*)::int AS accounts, coalesce(sum(balance), 0)::numeric(19,4)::text AS "globalSum" FROM users`;

export interface NewUserRow {
  referenceId: string;
  name: string;
  upiId: string;
  phoneNumber: string;
  /** Four decimals, as the numeric(19,4) column keeps it. */
  balance: string;
  pinHash: string | null;
}

/** users: the accounts. Balances and the hash chain's head are written by the money movement functions. */
@Injectable()
export class UsersRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** In the caller's transaction, so that the opening balance's ledger entries commit with the row. */
  async insert(client: PoolClient, user: NewUserRow): Promise<UserRow> {
    const { referenceId, name, upiId, phoneNumber, balance, pinHash } = user;
    const { rows } = await client.query<UserRow>(INSERT, [referenceId, name, upiId, phoneNumber, balance, pinHash]);
    return rows[0];
  }

  async findByReferenceId(referenceId: string): Promise<UserRow | null> {
    return this.first(BY_REFERENCE, [referenceId]);
  }

  /** UPI IDs are unique regardless of case. */
  async findByUpiId(upiId: string): Promise<UserRow | null> {
    return this.first(BY_UPI_ID, [upiId]);
  }

  /** The one read that includes the PIN hash: login compares it and nothing else sees it. */
  async findForLogin(upiId: string): Promise<UserRow | null> {
    return this.first(FOR_LOGIN, [upiId]);
  }

  /** An offset page of the users (not the treasury), ascending by the sort key, then by id. */
  async findPage(sortBy: UserSortKey, page: PageBounds): Promise<{ total: number; rows: UserRow[] }> {
    const { rows } = await this.pool.query<UserRow & { total: string }>(PAGE_QUERIES[sortBy], [
      page.page * page.size,
      page.size,
    ]);
    // A page past the end has no row to carry the count.
    const total = rows.length > 0 ? Number(rows[0].total) : await this.count();
    return { total, rows: rows.map(({ total: _, ...row }) => row) };
  }

  /** The users (not the treasury) whose balance exceeds the threshold (four decimals), by id. */
  async findWithBalanceAbove(threshold: string): Promise<UserRow[]> {
    const { rows } = await this.pool.query<UserRow>(BALANCE_ABOVE, [threshold]);
    return rows;
  }

  /** The id of the user (not the treasury) with this reference ID, or null. */
  async findUserId(referenceId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ id: string }>(USER_ID, [referenceId]);
    return rows[0]?.id ?? null;
  }

  /**
   * Locks the user's row in the caller's transaction and returns its id (null: no such user).
   * Movements already holding the lock finish first; those queued behind it see the change.
   */
  async lockUser(client: PoolClient, referenceId: string): Promise<string | null> {
    const { rows } = await client.query<{ id: string }>(LOCK_USER, [referenceId]);
    return rows[0]?.id ?? null;
  }

  /** Frozen since the first freeze (a second one keeps that time), with the latest reason. */
  async freeze(client: PoolClient, userId: string, reason: string): Promise<void> {
    await client.query(FREEZE, [userId, reason]);
  }

  async unfreeze(client: PoolClient, userId: string): Promise<void> {
    await client.query(UNFREEZE, [userId]);
  }

  /** The reference IDs of the users (not the treasury) whose UPI IDs, lower-cased, are listed. */
  async findUserReferenceIdsByUpiIds(lowerCaseUpiIds: string[]): Promise<string[]> {
    const { rows } = await this.pool.query<{ reference_id: string }>(USER_REFERENCE_IDS_BY_UPI_IDS, [lowerCaseUpiIds]);
    return rows.map((row) => row.reference_id);
  }

  /**
   * Locks, in the caller's transaction (the service's or the admin CLI's), the user with this
   * reference ID or this UPI ID (any case); undefined when there is none.
   */
  static async lockUserByReferenceOrUpiId(
    db: ClientBase,
    account: { referenceId?: string; upiId?: string },
  ): Promise<{ id: string; upiId: string; referenceId: string } | undefined> {
    const { rows } = await db.query<{ id: string; upiId: string; referenceId: string }>(
      LOCK_USER_BY_REFERENCE_OR_UPI_ID,
      [account.referenceId ?? '', account.upiId ?? ''],
    );
    return rows[0];
  }

  async countFrozen(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(COUNT_FROZEN);
    return rows[0].n;
  }

  // The audit's reads (src/audit): on the connection that holds its snapshot, the CLI's included.

  static async findBrokenAccounts(db: ClientBase): Promise<BrokenAccount[]> {
    return (await db.query<BrokenAccount>(BROKEN_ACCOUNTS)).rows;
  }

  /** Every account, the treasury's included, and the sum of their balances (0 when no money was made or lost). */
  static async totals(db: ClientBase): Promise<{ accounts: number; globalSum: string }> {
    return (await db.query<{ accounts: number; globalSum: string }>(ACCOUNT_TOTALS)).rows[0];
  }

  private async count(): Promise<number> {
    const { rows } = await this.pool.query<{ total: string }>(COUNT);
    return Number(rows[0].total);
  }

  private async first(text: string, values: unknown[]): Promise<UserRow | null> {
    const { rows } = await this.pool.query<UserRow>(text, values);
    return rows[0] ?? null;
  }
}
