import type { StoredOutcome } from '../idempotency/stored-outcome';
import type { CreatedResource } from '../movements/outcome-renderer';
import { TransactionResponse, type TransactionFields } from './transaction.dto';

/** The SQL names status and type only for movements other than a completed transfer. */
type CompletedData = Omit<TransactionFields, 'status' | 'type'> & Partial<Pick<TransactionFields, 'status' | 'type'>>;

/**
 * What a completed transfer, reversal or deposit answers: the Transaction it created, from the
 * stored outcome's data (a payment names its request beside it, from the transfer's context).
 */
export function transactionResource(data: Record<string, unknown>, outcome: StoredOutcome): CreatedResource {
  const fields = data as unknown as CompletedData;
  const body = TransactionResponse.from({
    ...fields,
    ...(outcome.paymentRequestReferenceId && { paymentRequestReferenceId: outcome.paymentRequestReferenceId }),
    status: fields.status ?? 'COMPLETED',
    type: fields.type ?? 'TRANSFER',
  });
  return { body, location: `/api/v1/transactions/${fields.referenceId}`, referenceId: fields.referenceId };
}
