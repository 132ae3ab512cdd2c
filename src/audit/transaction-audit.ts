/** A transaction whose row disagrees with its hash, its chained ledger entries or its reversals. */
export interface BrokenTransaction {
  transactionReferenceId: string;
  transactionId: string;
  type: string;
  reasons: string[];
}

// Each transaction against what it cannot change without leaving a trace:
// - its content_hash (written on insert by a trigger over the immutable fields);
// - its ledger entries, which are hash-chained per account: the receiver's CREDITs and the
//   sender's DEBITs (the treasury's rows, for a deposit) each add up to the amount, under its
//   reference. Not their time: rows written by the first-round transfer function stamped the
//   transaction and its entries separately, so only the hash covers a transaction's time;
// - for a TRANSFER, the REVERSALs that name it: reversed_amount is their sum and status the one
//   that sum implies; a REVERSAL mirrors the parties of the TRANSFER it names.
// Not-null guards on every comparison: a missing side is a finding, never a silent NULL.
export const BROKEN_TRANSACTIONS = `
  WITH sides AS (
    SELECT t.id,
      coalesce(sum(l.amount) FILTER (WHERE l.entry_type = 'CREDIT' AND l.user_id = t.receiver_id), 0) AS credited,
      coalesce(sum(l.amount) FILTER (WHERE l.entry_type = 'DEBIT' AND (l.user_id = t.sender_id
        OR (t.type = 'DEPOSIT' AND l.user_id <= 0))), 0) AS debited,
      count(*) FILTER (WHERE l.id IS NOT NULL AND l.transaction_reference_id <> t.reference_id) AS misnamed
    FROM transactions t LEFT JOIN ledger_entries l ON l.transaction_id = t.id
    GROUP BY t.id),
  reversals AS (
    SELECT r.original_transaction_id AS id, sum(r.amount) AS reversed
    FROM transactions r WHERE r.type = 'REVERSAL' AND r.original_transaction_id IS NOT NULL
    GROUP BY r.original_transaction_id),
  checked AS (
    SELECT t.id, t.reference_id, t.type, array_remove(ARRAY[
        CASE WHEN t.content_hash IS DISTINCT FROM transaction_content_hash(t.id, t.reference_id, t.sender_id,
               t.receiver_id, t.sender_upi_id, t.receiver_upi_id, t.amount, t.type, t.note, t.original_transaction_id,
               t.original_reference_id, t.created_at)
             THEN 'hash does not match the transaction''s parties, amount, type, note, original and time' END,
        CASE WHEN s.credited <> t.amount
             THEN 'the receiver''s CREDIT entries do not add up to the amount' END,
        CASE WHEN s.debited <> t.amount
             THEN 'the sender''s DEBIT entries do not add up to the amount' END,
        CASE WHEN s.misnamed > 0 THEN 'its ledger entries carry another reference' END,
        CASE WHEN t.reversed_amount <> coalesce(v.reversed, 0)
             THEN 'reversedAmount is not the sum of its reversals' END,
        CASE WHEN t.status IS DISTINCT FROM CASE WHEN coalesce(v.reversed, 0) = 0 THEN 'COMPLETED'
                                                  WHEN v.reversed = t.amount THEN 'REVERSED'
                                                  ELSE 'PARTIALLY_REVERSED' END
             THEN 'status is not the one its reversals imply' END,
        CASE WHEN coalesce(v.reversed, 0) > t.amount THEN 'its reversals return more than the amount' END,
        CASE WHEN v.reversed IS NOT NULL AND t.type <> 'TRANSFER' THEN 'reversals name a transaction that is not a TRANSFER' END,
        CASE WHEN t.type = 'REVERSAL' AND (o.id IS NULL OR o.sender_id <> t.receiver_id OR o.receiver_id <> t.sender_id
                                           OR o.reference_id IS DISTINCT FROM t.original_reference_id)
             THEN 'a reversal that does not mirror the transfer it names' END,
        CASE WHEN t.type <> 'REVERSAL' AND (t.original_transaction_id IS NOT NULL OR t.original_reference_id IS NOT NULL)
             THEN 'names an original but is not a REVERSAL' END], NULL) AS reasons
    FROM transactions t
    JOIN sides s ON s.id = t.id
    LEFT JOIN reversals v ON v.id = t.id
    LEFT JOIN transactions o ON o.id = t.original_transaction_id)
  SELECT reference_id::text AS "transactionReferenceId", id::text AS "transactionId", type, reasons
  FROM checked WHERE cardinality(reasons) > 0
  ORDER BY id`;
