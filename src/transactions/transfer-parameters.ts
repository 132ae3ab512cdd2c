import type { AnswerContext } from '../idempotency/stored-outcome';
import type { MovementFunction } from '../movements/movement-call';
import type { MovementKey } from '../movements/movement-runner';
import { transactionResource } from './transaction-resource';

/** One transfer as the database functions take it: transfer_funds(p_owner, ...) and, one array each, transfer_funds_batch. */
export interface TransferParameters extends MovementKey {
  senderUpiId: string;
  receiverUpiId: string;
  /** Exact decimal text with four places. */
  amount: string;
  note: string | null;
  referenceId: string;
  eventId: string;
  context: AnswerContext;
}

/**
 * The SQL type of each parameter, in the functions' argument order (p_ + snake_case name). Every
 * field of TransferParameters must be here and nothing else; a medium test compares this list with
 * what PostgreSQL reports for both functions' signatures.
 */
export const TRANSFER_ARGUMENT_TYPES = {
  owner: 'text',
  idempotencyKey: 'text',
  requestHash: 'text',
  senderUpiId: 'text',
  receiverUpiId: 'text',
  amount: 'numeric',
  note: 'text',
  referenceId: 'uuid',
  eventId: 'uuid',
  context: 'jsonb',
} as const satisfies { [Field in keyof TransferParameters]: string };

export const TRANSFER_FUNDS: MovementFunction<TransferParameters> = {
  name: 'transfer_funds',
  argumentTypes: TRANSFER_ARGUMENT_TYPES,
  publishes: true,
  resource: transactionResource,
};

const FIELDS = Object.keys(TRANSFER_ARGUMENT_TYPES) as (keyof TransferParameters)[];

/** transfer_funds_batch's values: one array per field, items in order. */
export function transferBatchArguments(items: readonly TransferParameters[]): unknown[][] {
  return FIELDS.map((field) => items.map((item) => item[field]));
}
