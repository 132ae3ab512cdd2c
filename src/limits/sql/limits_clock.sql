-- The time limits count days by: the movement's time, unless the session sets payments.limits_now
-- (tests and drills put a transfer at 23:59:59.999 local without waiting for midnight).
CREATE OR REPLACE FUNCTION limits_clock(p_now timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('payments.limits_now', true), '')::timestamptz, p_now)
$$;
