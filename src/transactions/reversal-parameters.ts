import type { AnswerContext } from '../idempotency/stored-outcome';
import type { MovementFunction } from '../movements/movement-call';
import type { MovementKey } from '../movements/movement-runner';
import { transactionResource } from './transaction-resource';

/** One reversal as reverse_transfer(p_owner, ...) takes it. */
export interface ReversalParameters extends MovementKey {
  originalReferenceId: string;
  /** Exact decimal text with four places; null reverses all that remains. */
  amount: string | null;
  note: string | null;
  referenceId: string;
  eventId: string;
  context: AnswerContext;
}

/** The SQL type of each parameter, in argument order; a medium test holds it to the signature. */
export const REVERSE_TRANSFER: MovementFunction<ReversalParameters> = {
  name: 'reverse_transfer',
  argumentTypes: {
    owner: 'text',
    idempotencyKey: 'text',
    requestHash: 'text',
    originalReferenceId: 'uuid',
    amount: 'numeric',
    note: 'text',
    referenceId: 'uuid',
    eventId: 'uuid',
    context: 'jsonb',
  },
  publishes: true,
  resource: transactionResource,
};
