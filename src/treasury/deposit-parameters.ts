import type { AnswerContext } from '../idempotency/stored-outcome';
import type { MovementFunction } from '../movements/movement-call';
import type { MovementKey } from '../movements/movement-runner';
import { transactionResource } from '../transactions/transaction-resource';

/** One deposit as deposit_funds(p_owner, ...) takes it; the owner is the admin's UPI ID. */
export interface DepositParameters extends MovementKey {
  upiId: string;
  /** Exact decimal text with four places. */
  amount: string;
  note: string | null;
  referenceId: string;
  context: AnswerContext;
}

/** The SQL type of each parameter, in argument order; a medium test holds it to the signature. */
export const DEPOSIT_FUNDS: MovementFunction<DepositParameters> = {
  name: 'deposit_funds',
  argumentTypes: {
    owner: 'text',
    idempotencyKey: 'text',
    requestHash: 'text',
    upiId: 'text',
    amount: 'numeric',
    note: 'text',
    referenceId: 'uuid',
    context: 'jsonb',
  },
  // A deposit writes no event: money issued is not a transfer.
  publishes: false,
  resource: transactionResource,
};
