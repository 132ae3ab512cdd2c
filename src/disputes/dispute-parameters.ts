import type { AnswerContext } from '../idempotency/stored-outcome';
import type { MovementFunction } from '../movements/movement-call';
import type { CreatedResource } from '../movements/outcome-renderer';
import type { MovementKey } from '../movements/movement-runner';
import { type DisputeFields, DisputeResponse } from './dispute.dto';

/** A completed opening or answer: the dispute, from the stored outcome's data. */
export function disputeResource(data: Record<string, unknown>): CreatedResource {
  const fields = data as unknown as DisputeFields;
  return {
    body: DisputeResponse.of(fields),
    location: `/api/v1/disputes/${fields.referenceId}`,
    referenceId: fields.referenceId,
  };
}

/** One opening as open_dispute(p_owner, ...) takes it (sql/dispute_open_apply.sql in the movement skeleton). */
export interface OpenDisputeParameters extends MovementKey {
  transactionReferenceId: string;
  reason: string;
  /** Exact decimal text with four places; null disputes all that is not yet reversed. */
  amount: string | null;
  description: string | null;
  referenceId: string;
  windowSeconds: number;
  responseSeconds: number;
  resolutionSeconds: number;
  context: AnswerContext;
}

export const OPEN_DISPUTE: MovementFunction<OpenDisputeParameters> = {
  name: 'open_dispute',
  argumentTypes: {
    owner: 'text',
    idempotencyKey: 'text',
    requestHash: 'text',
    transactionReferenceId: 'uuid',
    reason: 'text',
    amount: 'numeric',
    description: 'text',
    referenceId: 'uuid',
    windowSeconds: 'numeric',
    responseSeconds: 'numeric',
    resolutionSeconds: 'numeric',
    context: 'jsonb',
  },
  publishes: true,
  resource: disputeResource,
};

export type DisputeAction = 'ACCEPT' | 'REJECT' | 'WITHDRAW' | 'REFUND' | 'DISMISS';

/** One answer to a dispute as dispute_act takes it (sql/dispute_act.sql); an accept or a refund moves money. */
export interface DisputeActParameters {
  /** The caller's lower-cased UPI ID. */
  actor: string;
  referenceId: string;
  action: DisputeAction;
  amount: string | null;
  note: string | null;
  resolutionSeconds: number;
}

export const DISPUTE_ACT: MovementFunction<DisputeActParameters> = {
  name: 'dispute_act',
  argumentTypes: {
    actor: 'text',
    referenceId: 'uuid',
    action: 'text',
    amount: 'numeric',
    note: 'text',
    resolutionSeconds: 'numeric',
  },
  publishes: true,
  resource: disputeResource,
};
