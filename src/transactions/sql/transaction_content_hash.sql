-- The hash of a transaction's immutable fields (transactions_seal.sql stores it, the audit
-- recomputes it). Its format is history: every stored hash depends on it, so never change what it
-- hashes or how. Money at its stored scale and the time as epoch microseconds: the text never
-- depends on session settings. Absent values are written '-' (concat_ws would skip them), and the
-- note, the one free text, goes last, so no note can pass for other fields.
CREATE OR REPLACE FUNCTION transaction_content_hash(
  p_id bigint, p_reference uuid, p_sender_id bigint, p_receiver_id bigint, p_sender_upi_id text,
  p_receiver_upi_id text, p_amount numeric, p_type text, p_note text, p_original_id bigint,
  p_original_reference uuid, p_created_at timestamptz
) RETURNS char(64) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT encode(sha256(convert_to(concat_ws('|', 'transaction-v1',
    p_id::text, p_reference::text, p_sender_id::text, p_receiver_id::text, p_sender_upi_id, p_receiver_upi_id,
    p_amount::numeric(19,4)::text, p_type, coalesce(p_original_id::text, '-'),
    coalesce(p_original_reference::text, '-'), (extract(epoch FROM p_created_at) * 1000000)::bigint::text,
    coalesce('n:' || p_note, '-')), 'UTF8')), 'hex')
$$;
