-- The limits this session enforces, as the service sets them on each of its connections
-- (payments.limits, JSON: timeZone, dailyAmountMax, dailyCountMax, newUserHours, newUserAmountMax;
-- src/config/limits-settings.ts: a startup option of every money-pool connection). Unset (a
-- session that is not the service's) means no profile limit applies: only overrides and freezes.
CREATE OR REPLACE FUNCTION limits_settings() RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('payments.limits', true), '')::jsonb, '{}'::jsonb)
$$;
