-- A transaction is immutable but for its reversed amount and status, which change only inside
-- reverse_transfer (it says so with the transaction-local setting payments.reversal_of = the
-- original's id) and only to the values the reversals that exist imply. The setting guards
-- against accidents, not a secret; the values check makes a forged reversal state impossible
-- either way. Every other column is compared as a whole row (to_jsonb), so a column added later
-- is immutable too unless this function is changed on purpose. An ordinary trigger, so a logical
-- replica applies the primary's updates as they come.
CREATE OR REPLACE FUNCTION transactions_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_reversed numeric(19,4);
  v_status text;
BEGIN
  IF to_jsonb(NEW) - 'reversed_amount' - 'status' IS DISTINCT FROM to_jsonb(OLD) - 'reversed_amount' - 'status' THEN
    RAISE EXCEPTION 'transaction % is immutable: only a reversal changes its reversed amount and status',
      OLD.reference_id USING ERRCODE = 'restrict_violation';
  END IF;
  IF (NEW.reversed_amount, NEW.status) IS NOT DISTINCT FROM (OLD.reversed_amount, OLD.status) THEN
    RETURN NEW;
  END IF;
  IF current_setting('payments.reversal_of', true) IS DISTINCT FROM OLD.id::text THEN
    RAISE EXCEPTION 'the reversed amount and status of transaction % change only by reverse_transfer',
      OLD.reference_id USING ERRCODE = 'restrict_violation';
  END IF;
  -- A reversal is stamped after its original: only the partitions from the original's on are read.
  SELECT coalesce(sum(amount), 0) INTO v_reversed FROM transactions
  WHERE original_transaction_id = OLD.id AND created_at >= OLD.created_at;
  v_status := CASE WHEN v_reversed = 0 THEN 'COMPLETED' WHEN v_reversed = OLD.amount THEN 'REVERSED'
                   ELSE 'PARTIALLY_REVERSED' END;
  IF NEW.reversed_amount <> v_reversed OR NEW.status <> v_status THEN
    RAISE EXCEPTION 'transaction % would read % reversed (%), but its reversals sum to % (%)', OLD.reference_id,
      NEW.reversed_amount, NEW.status, v_reversed, v_status USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER trg_transactions_guard
  BEFORE UPDATE ON transactions
  FOR EACH ROW EXECUTE FUNCTION transactions_guard();
