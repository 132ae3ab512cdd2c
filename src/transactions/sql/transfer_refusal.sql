-- The transfer rules, written once: transfer_apply (one transfer) and transfer_funds_batch (each
-- item) ask this, with the accounts already locked (the batch passes its running balance and
-- limits), and write the transfer only when it answers NULL. Otherwise {"code", "data"} of the
-- first rule that refuses, in this order: payment-request-not-open (before anything else: a paid,
-- cancelled or expired request is refused whatever the balance or the limits) | self-transfer |
-- user-not-found | account-frozen or limit-exceeded (src/limits/sql) | insufficient-balance.
-- p_amount is rendered as the caller holds it; p_limits comes from limits_begin (NULL: none apply).
CREATE OR REPLACE FUNCTION transfer_refusal(
  p_context jsonb,
  p_sender_upi_id text,
  p_receiver_upi_id text,
  p_sender_id bigint,
  p_receiver_id bigint,
  p_sender_balance numeric,
  p_amount numeric,
  p_limits jsonb
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_refusal jsonb;
BEGIN
  IF NOT payment_request_open(p_context) THEN
    RETURN jsonb_build_object('code', 'payment-request-not-open', 'data', payment_request_refusal(p_context));
  ELSIF lower(p_sender_upi_id) = lower(p_receiver_upi_id) THEN
    RETURN '{"code": "self-transfer", "data": {}}';
  ELSIF p_sender_id IS NULL OR p_receiver_id IS NULL THEN
    RETURN jsonb_build_object('code', 'user-not-found', 'data', jsonb_build_object('upiId',
      CASE WHEN p_receiver_id IS NULL THEN p_receiver_upi_id ELSE p_sender_upi_id END));
  END IF;
  v_refusal := limits_refusal(p_limits, p_sender_id, p_receiver_id, p_amount);
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal; -- {"code", "data"} already
  ELSIF p_sender_balance < p_amount THEN
    RETURN jsonb_build_object('code', 'insufficient-balance',
      'data', jsonb_build_object('available', p_sender_balance::numeric(19,4)::text, 'required', p_amount::text));
  END IF;
  RETURN NULL;
END
$$;
