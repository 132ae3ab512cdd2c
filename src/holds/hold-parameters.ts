import type { AnswerContext, StoredOutcome } from '../idempotency/stored-outcome';
import type { MovementFunction } from '../movements/movement-call';
import type { MovementKey } from '../movements/movement-runner';
import type { CreatedResource } from '../movements/outcome-renderer';
import { transactionResource } from '../transactions/transaction-resource';
import { type HoldFields, HoldResponse } from './hold.dto';

/** One placement as place_hold(p_owner, ...) takes it (sql/hold_place_apply.sql in the movement skeleton). */
export interface PlaceHoldParameters extends MovementKey {
  payerUpiId: string;
  payeeUpiId: string;
  /** Exact decimal text with four places. */
  amount: string;
  note: string | null;
  expiresInSeconds: number;
  referenceId: string;
  eventId: string;
  context: AnswerContext;
}

/** One capture as capture_hold(p_owner, ...) takes it (sql/hold_capture_apply.sql in the movement skeleton). */
export interface CaptureHoldParameters extends MovementKey {
  holdReferenceId: string;
  /** Exact decimal text with four places; null captures all that remains. */
  amount: string | null;
  note: string | null;
  referenceId: string;
  eventId: string;
  context: AnswerContext;
}

/** A release (owner: the payee) or an expiry (owner null) as hold_return takes it; no key. */
export interface ReturnHoldParameters {
  holdReferenceId: string;
  owner: string | null;
  returnReferenceId: string;
  eventId: string;
}

/** What a completed placement answers: the Hold, as it stood when placed. */
export function holdResource(data: Record<string, unknown>, _outcome?: StoredOutcome): CreatedResource {
  const fields = data as unknown as HoldFields;
  return {
    body: HoldResponse.from(fields),
    location: `/api/v1/holds/${fields.referenceId}`,
    referenceId: fields.referenceId,
  };
}

/** The SQL type of each parameter, in argument order; a medium test holds it to the signature. */
export const PLACE_HOLD: MovementFunction<PlaceHoldParameters> = {
  name: 'place_hold',
  argumentTypes: {
    owner: 'text',
    idempotencyKey: 'text',
    requestHash: 'text',
    payerUpiId: 'text',
    payeeUpiId: 'text',
    amount: 'numeric',
    note: 'text',
    expiresInSeconds: 'integer',
    referenceId: 'uuid',
    eventId: 'uuid',
    context: 'jsonb',
  },
  publishes: true,
  resource: holdResource,
};

export const CAPTURE_HOLD: MovementFunction<CaptureHoldParameters> = {
  name: 'capture_hold',
  argumentTypes: {
    owner: 'text',
    idempotencyKey: 'text',
    requestHash: 'text',
    holdReferenceId: 'uuid',
    amount: 'numeric',
    note: 'text',
    referenceId: 'uuid',
    eventId: 'uuid',
    context: 'jsonb',
  },
  publishes: true,
  resource: transactionResource,
};

export const RETURN_HOLD: MovementFunction<ReturnHoldParameters> = {
  name: 'hold_return',
  argumentTypes: { holdReferenceId: 'uuid', owner: 'text', returnReferenceId: 'uuid', eventId: 'uuid' },
  publishes: true,
  resource: holdResource,
};
