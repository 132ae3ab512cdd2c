-- Writes the day's usage of every sender the movement counted, in the movement's transaction. The
-- sender's account lock (account_lock.sql) serialises its transfers, so the running totals are the new values.
CREATE OR REPLACE FUNCTION limits_finish(p_state jsonb) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO limits_daily_usage (user_id, day, amount, count)
  SELECT key::bigint, (value->>'day')::date, (value->>'amountUsed')::numeric, (value->>'countUsed')::integer
  FROM jsonb_each(p_state)
  WHERE (value->>'dirty')::boolean
  ON CONFLICT (user_id, day) DO UPDATE SET amount = EXCLUDED.amount, count = EXCLUDED.count
$$;
