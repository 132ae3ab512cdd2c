import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import type { HoldFields, HoldRole, HoldStatus } from './hold.dto';

/** A hold as read: its JSON (sql/hold_json.sql, the movements' own rendering) and its internal id for cursors. */
export interface HoldRow {
  id: string;
  hold: HoldFields;
}

const BY_REFERENCE = `SELECT h.id::text AS id, hold_json(h) AS hold FROM holds h WHERE h.reference_id = $1`;

const PARTY_COLUMNS: Record<HoldRole, string> = { payer: 'payer_id', payee: 'payee_id' };

/** $1 the owner's reference id, $2 status or null, $3 after this id or null, $4 how many, $5 offset. */
const LIST_QUERIES = Object.fromEntries(
  Object.entries(PARTY_COLUMNS).map(([role, column]) => [
    role,
    {
      name: `holds-list-${role}`,
      text: `SELECT h.id::text AS id, hold_json(h) AS hold FROM holds h
             WHERE h.${column} = (SELECT u.id FROM users u WHERE u.reference_id = $1)
               AND ($2::text IS NULL OR h.status = $2) AND ($3::bigint IS NULL OR h.id < $3)
             ORDER BY h.id DESC LIMIT $4 OFFSET $5`,
    },
  ]),
) as Record<HoldRole, { name: string; text: string }>;

const COUNT_QUERIES = Object.fromEntries(
  Object.entries(PARTY_COLUMNS).map(([role, column]) => [
    role,
    `SELECT count(*)::int AS total FROM holds h
     WHERE h.${column} = (SELECT u.id FROM users u WHERE u.reference_id = $1) AND ($2::text IS NULL OR h.status = $2)`,
  ]),
) as Record<HoldRole, string>;

/** Open holds past their expiry, oldest due first (the partial index ix_holds_due). */
const DUE = `SELECT reference_id AS "referenceId" FROM holds
  WHERE status = 'HELD' AND expires_at <= clock_timestamp() ORDER BY expires_at LIMIT $1`;

const OUTSTANDING = `SELECT count(*)::int AS count, coalesce(sum(amount - captured_amount), 0)::text AS remaining
  FROM holds WHERE status = 'HELD'`;

/** holds and hold_captures: read here; written only by the hold movements (sql/*.sql). */
@Injectable()
export class HoldsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async find(referenceId: string): Promise<HoldRow | null> {
    const { rows } = await this.pool.query<HoldRow>(BY_REFERENCE, [referenceId]);
    return rows[0] ?? null;
  }

  /** The owner's holds in one role, newest first; after the hold with internal id afterId when given. */
  async listOf(
    ownerReferenceId: string,
    role: HoldRole,
    options: { status?: HoldStatus; afterId?: string; take: number; offset?: number },
  ): Promise<HoldRow[]> {
    const values = [
      ownerReferenceId,
      options.status ?? null,
      options.afterId ?? null,
      options.take,
      options.offset ?? 0,
    ];
    const { rows } = await this.pool.query<HoldRow>({ ...LIST_QUERIES[role], values });
    return rows;
  }

  async count(ownerReferenceId: string, role: HoldRole, status?: HoldStatus): Promise<number> {
    const { rows } = await this.pool.query<{ total: number }>(COUNT_QUERIES[role], [ownerReferenceId, status ?? null]);
    return rows[0].total;
  }

  /** Up to `limit` holds due to expire; the expiry itself decides under the hold's lock. */
  async findDue(limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ referenceId: string }>(DUE, [limit]);
    return rows.map((row) => row.referenceId);
  }

  /** How many holds are HELD and what they still reserve (exact text). */
  async outstanding(): Promise<{ count: number; remaining: string }> {
    const { rows } = await this.pool.query<{ count: number; remaining: string }>(OUTSTANDING);
    return rows[0];
  }
}
