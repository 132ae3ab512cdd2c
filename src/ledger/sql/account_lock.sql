-- Holds a user's account for the rest of the transaction: the lock every writer of a user's
-- balance, head hash or freeze takes first (the movements through account_locked.sql and
-- transfer_funds_batch.sql, ledger_append, record_opening_balance, the freeze, the chain trigger),
-- each taking its accounts in one order (lower-cased UPI ID, byte order), so none can deadlock.
-- A transaction-level advisory lock (class 1094927188, "ACCT"; the id's low 31 bits), which
-- PostgreSQL keeps in memory, where a row lock (FOR UPDATE) writes a WAL record and dirties the
-- row's page: about 65 bytes of WAL per account per movement (issue 41). Whoever reads the row
-- after taking it reads its last committed state. An inlined SQL function: no call per account.
CREATE OR REPLACE FUNCTION account_lock(p_id bigint) RETURNS void
LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(1094927188, (p_id & 2147483647)::integer)
$$;
