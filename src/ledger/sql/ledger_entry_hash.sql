-- The hash of one ledger entry, chained to its account's previous one (ledger_append.sql, the
-- batch, and ledger_entries_chain.sql compute it). Its format is history: every stored hash
-- depends on it, so never change what it hashes or how (a new format needs a new function and a
-- migration). Money is hashed at its stored scale and the time as epoch microseconds, so the
-- text never depends on session settings. STABLE (concat_ws and convert_to are), so PostgreSQL
-- inlines it instead of running it as a SQL function per entry.
CREATE OR REPLACE FUNCTION ledger_entry_hash(
  p_previous text, p_user_id bigint, p_reference uuid, p_entry_type text,
  p_amount numeric, p_balance_before numeric, p_balance_after numeric, p_created_at timestamptz
) RETURNS char(64) LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT encode(sha256(convert_to(concat_ws('|',
    coalesce(p_previous, ''), p_user_id::text, p_reference::text, p_entry_type,
    p_amount::numeric(19,4)::text, p_balance_before::numeric(19,4)::text, p_balance_after::numeric(19,4)::text,
    (extract(epoch FROM p_created_at) * 1000000)::bigint::text), 'UTF8')), 'hex')
$$;
