import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import type { MovementResult } from '../idempotency/stored-outcome';
import { callMovement } from '../movements/movement-call';
import type { DisputeFields, DisputeStatus } from './dispute.dto';
import { DISPUTE_ACT, type DisputeActParameters } from './dispute-parameters';

export type DisputeRole = 'raised' | 'received';

export interface DisputeRow {
  id: string;
  dispute: DisputeFields;
}

export interface DisputeFilter {
  status?: DisputeStatus;
  /** true: ESCALATED and past resolveBy; false: any other. */
  overdue?: boolean;
}

export interface DisputeSlice {
  afterId?: string;
  take: number;
  offset?: number;
}

/** The condition each filter adds, on the table aliased d; $2 is the status, $3 the overdue flag. */
const FILTERS = `($2::text IS NULL OR d.status = $2)
  AND ($3::boolean IS NULL OR (d.status = 'ESCALATED' AND clock_timestamp() > d.resolve_by) = $3)`;

const OWNER = {
  raised: `d.payer_id = (SELECT u.id FROM users u WHERE u.reference_id = $1)`,
  received: `d.payee_id = (SELECT u.id FROM users u WHERE u.reference_id = $1)`,
  all: `$1::uuid IS NULL`,
} as const;

const FIND = `SELECT dispute_json(d) AS dispute FROM disputes d WHERE d.reference_id = $1`;

const ESCALATE_DUE = `SELECT dispute_escalate_due($1, $2) AS escalated`;

const GAUGES = `SELECT count(*) FILTER (WHERE status = 'OPEN')::int AS open,
    count(*) FILTER (WHERE status = 'ESCALATED')::int AS escalated,
    count(*) FILTER (WHERE status = 'ESCALATED' AND clock_timestamp() > resolve_by)::int AS overdue
  FROM disputes WHERE status IN ('OPEN', 'ESCALATED')`;

/** Newest first, after the dispute with internal id $4 (a cursor) or from offset $6. */
function pageQuery(owner: string): string {
  return `SELECT d.id::text AS id, dispute_json(d) AS dispute FROM disputes d
    WHERE ${owner} AND ${FILTERS} AND ($4::bigint IS NULL OR d.id < $4)
    ORDER BY d.id DESC LIMIT $5 OFFSET $6`;
}

function countQuery(owner: string): string {
  return `SELECT count(*)::int AS total FROM disputes d WHERE ${owner} AND ${FILTERS}`;
}

const PAGES = {
  raised: pageQuery(OWNER.raised),
  received: pageQuery(OWNER.received),
  all: pageQuery(OWNER.all),
};
const COUNTS = {
  raised: countQuery(OWNER.raised),
  received: countQuery(OWNER.received),
  all: countQuery(OWNER.all),
};

/** The one way to disputes. Opening one is a movement (open_dispute); every answer is dispute_act. */
@Injectable()
export class DisputesRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** An answer to a dispute; an accept or an admin refund moves money, so it goes as a movement call. */
  act(parameters: DisputeActParameters): Promise<MovementResult> {
    return callMovement(this.pool, DISPUTE_ACT, parameters);
  }

  async findByReferenceId(referenceId: string): Promise<DisputeFields | null> {
    const { rows } = await this.pool.query<{ dispute: DisputeFields }>(FIND, [referenceId]);
    return rows[0]?.dispute ?? null;
  }

  /** A user's disputes by role (userReferenceId), or everyone's (null). */
  async page(
    scope: DisputeRole | 'all',
    userReferenceId: string | null,
    filter: DisputeFilter,
    slice: DisputeSlice,
  ): Promise<DisputeRow[]> {
    const { rows } = await this.pool.query<DisputeRow>(PAGES[scope], [
      userReferenceId,
      filter.status ?? null,
      filter.overdue ?? null,
      slice.afterId ?? null,
      slice.take,
      slice.offset ?? 0,
    ]);
    return rows;
  }

  async count(scope: DisputeRole | 'all', userReferenceId: string | null, filter: DisputeFilter): Promise<number> {
    const { rows } = await this.pool.query<{ total: number }>(COUNTS[scope], [
      userReferenceId,
      filter.status ?? null,
      filter.overdue ?? null,
    ]);
    return rows[0].total;
  }

  /** Escalates up to `limit` OPEN disputes past respondBy (claimed with SKIP LOCKED); how many it did. */
  async escalateDue(resolutionSeconds: number, limit: number): Promise<number> {
    const { rows } = await this.pool.query<{ escalated: number }>(ESCALATE_DUE, [resolutionSeconds, limit]);
    return rows[0].escalated;
  }

  async gauges(): Promise<{ open: number; escalated: number; overdue: number }> {
    const { rows } = await this.pool.query<{ open: number; escalated: number; overdue: number }>(GAUGES);
    return rows[0];
  }
}
