import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The whole transfer as one PL/pgSQL function, so a transfer is one round trip and
 * its row locks are held only as long as the work itself takes. See docs/money-core.md.
 */
export class TransferFunction1764000200000 implements MigrationInterface {
  name = 'TransferFunction1764000200000';

  async up(db: QueryRunner): Promise<void> {
    // A problem+json body (RFC 9457), compact, exactly as the API's filter writes it.
    await db.query(`
      CREATE FUNCTION "problem_json"(
        p_errors_base text, p_slug text, p_title text, p_status integer, p_detail text,
        p_instance text, p_request_id text, p_at timestamptz
      ) RETURNS text LANGUAGE sql IMMUTABLE AS $$
        SELECT format(
          '{"type":%s,"title":%s,"status":%s,"detail":%s,"instance":%s,"timestamp":%s,"requestId":%s}',
          to_json(p_errors_base || '/' || p_slug)::text, to_json(p_title)::text, p_status,
          to_json(p_detail)::text, to_json(p_instance)::text,
          to_json(to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text,
          to_json(p_request_id)::text)
      $$`);

    await db.query(`
      CREATE FUNCTION "transfer_funds"(
        p_owner text,
        p_idempotency_key text,
        p_request_hash text,
        p_sender_upi_id text,
        p_receiver_upi_id text,
        p_amount numeric(19,4),
        p_note text,
        p_reference_id uuid,
        p_event_id uuid,
        p_errors_base text,
        p_instance text,
        p_request_id text
      ) RETURNS TABLE ("response_status" integer, "response_body" text, "replayed" boolean)
      LANGUAGE plpgsql AS $$
      DECLARE
        v_key_id bigint;
        v_stored idempotency_keys%ROWTYPE;
        v_locked_first users%ROWTYPE;
        v_locked_second users%ROWTYPE;
        v_sender users%ROWTYPE;
        v_receiver users%ROWTYPE;
        v_first text := lower(p_sender_upi_id);
        v_second text := lower(p_receiver_upi_id);
        v_transaction_id bigint;
        -- Millisecond precision, so the stored time and every JSON rendering of it agree.
        v_now timestamptz := date_trunc('milliseconds', now());
        v_created_at text := to_char(date_trunc('milliseconds', now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
        v_status integer;
        v_body text;
      BEGIN
        -- Claim the key. A twin request still in flight holds it uncommitted: wait for it
        -- at most 2 s (then 55P03 -> 409), and replay its result once it commits.
        PERFORM set_config('lock_timeout', '2s', true);
        INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status)
        VALUES (p_owner, p_idempotency_key, p_request_hash, 'PROCESSING')
        ON CONFLICT (owner_upi_id, idempotency_key) DO NOTHING
        RETURNING id INTO v_key_id;
        PERFORM set_config('lock_timeout', '0', true);

        IF v_key_id IS NULL THEN
          SELECT * INTO v_stored FROM idempotency_keys
          WHERE owner_upi_id = p_owner AND idempotency_key = p_idempotency_key;
          IF v_stored.status IN ('INITIATED', 'PROCESSING') THEN
            -- A committed claim without a result (this function never commits one; an older
            -- node or a repair might). Past the 2-minute lease a retry takes it over.
            UPDATE idempotency_keys
            SET request_hash = p_request_hash, status = 'PROCESSING', updated_at = v_now
            WHERE id = v_stored.id AND updated_at < v_now - interval '2 minutes'
            RETURNING id INTO v_key_id;
            IF v_key_id IS NULL THEN
              RAISE EXCEPTION 'idempotency key % is in flight', p_idempotency_key USING ERRCODE = '55P03';
            END IF;
          ELSIF v_stored.request_hash <> p_request_hash THEN
            -- Not stored: the caller reused a key for a different request.
            RETURN QUERY SELECT 400, NULL::text, false;
            RETURN;
          ELSE
            RETURN QUERY SELECT v_stored.response_status, v_stored.response_body, true;
            RETURN;
          END IF;
        END IF;

        IF v_first = v_second THEN
          v_status := 400;
          v_body := problem_json(p_errors_base, 'self-transfer', 'Self Transfer Not Allowed', 400,
            'Sender and receiver must be different accounts', p_instance, p_request_id, v_now);
        ELSE
          -- Lock both accounts in one fixed order (lower-cased UPI ID, byte order), so
          -- opposite-direction transfers between the same pair can never deadlock.
          IF v_first COLLATE "C" > v_second COLLATE "C" THEN
            v_first := lower(p_receiver_upi_id);
            v_second := lower(p_sender_upi_id);
          END IF;
          SELECT * INTO v_locked_first FROM users WHERE lower(upi_id) = v_first FOR UPDATE;
          SELECT * INTO v_locked_second FROM users WHERE lower(upi_id) = v_second FOR UPDATE;
          IF v_first = lower(p_sender_upi_id) THEN
            v_sender := v_locked_first;
            v_receiver := v_locked_second;
          ELSE
            v_sender := v_locked_second;
            v_receiver := v_locked_first;
          END IF;

          IF v_receiver.id IS NULL OR v_sender.id IS NULL THEN
            v_status := 404;
            v_body := problem_json(p_errors_base, 'user-not-found', 'User Not Found', 404,
              format('No user with UPI ID %s', CASE WHEN v_receiver.id IS NULL THEN p_receiver_upi_id ELSE p_sender_upi_id END),
              p_instance, p_request_id, v_now);
          ELSIF v_sender.balance < p_amount THEN
            v_status := 422;
            v_body := problem_json(p_errors_base, 'insufficient-balance', 'Insufficient Balance', 422,
              format('Available balance %s is less than the required amount %s', v_sender.balance, p_amount),
              p_instance, p_request_id, v_now);
          ELSE
            UPDATE users SET balance = balance - p_amount, version = version + 1, updated_at = v_now
            WHERE id = v_sender.id;
            UPDATE users SET balance = balance + p_amount, version = version + 1, updated_at = v_now
            WHERE id = v_receiver.id;

            INSERT INTO transactions (reference_id, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount, note, created_at)
            VALUES (p_reference_id, v_sender.id, v_receiver.id, v_sender.upi_id, v_receiver.upi_id, p_amount, p_note, v_now)
            RETURNING id INTO v_transaction_id;

            INSERT INTO ledger_entries (user_id, transaction_id, transaction_reference_id, entry_type, amount, balance_before, balance_after, created_at)
            VALUES
              (v_sender.id, v_transaction_id, p_reference_id, 'DEBIT', p_amount, v_sender.balance, v_sender.balance - p_amount, v_now),
              (v_receiver.id, v_transaction_id, p_reference_id, 'CREDIT', p_amount, v_receiver.balance, v_receiver.balance + p_amount, v_now);

            INSERT INTO outbox_events (event_id, event_type, aggregate_key, payload, created_at)
            VALUES (p_event_id, 'TransferCompleted', v_sender.upi_id, format(
              '{"eventId":"%s","eventType":"TransferCompleted","occurredAt":"%s","transactionId":%s,"transactionReferenceId":"%s","senderUpiId":%s,"receiverUpiId":%s,"amount":"%s","currency":"INR","note":%s}',
              p_event_id, v_created_at, v_transaction_id, p_reference_id,
              to_json(v_sender.upi_id)::text, to_json(v_receiver.upi_id)::text, p_amount, coalesce(to_json(p_note)::text, 'null')), v_now);

            v_status := 201;
            v_body := format(
              '{"transactionId":%s,"referenceId":"%s","senderUpiId":%s,"receiverUpiId":%s,"amount":%s,"status":"COMPLETED","type":"TRANSFER","note":%s,"createdAt":"%s"}',
              v_transaction_id, p_reference_id, to_json(v_sender.upi_id)::text, to_json(v_receiver.upi_id)::text,
              p_amount, coalesce(to_json(p_note)::text, 'null'), v_created_at);
          END IF;
        END IF;

        UPDATE idempotency_keys
        SET status = CASE WHEN v_status = 201 THEN 'SUCCESS' ELSE 'FAILED' END,
            response_status = v_status, response_body = v_body, updated_at = v_now
        WHERE id = v_key_id;
        RETURN QUERY SELECT v_status, v_body, false;
      END
      $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `DROP FUNCTION "transfer_funds"(text, text, text, text, text, numeric, text, uuid, uuid, text, text, text)`,
    );
    await db.query(`DROP FUNCTION "problem_json"(text, text, text, integer, text, text, text, timestamptz)`);
  }
}
