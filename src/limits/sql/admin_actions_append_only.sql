-- The same guard as the ledger's: the admin actions log is evidence, so no role may rewrite it.
CREATE OR REPLACE FUNCTION admin_actions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admin_actions is append-only: % is not allowed', TG_OP;
END
$$;

CREATE OR REPLACE TRIGGER tr_admin_actions_append_only
  BEFORE UPDATE OR DELETE OR TRUNCATE ON admin_actions
  FOR EACH STATEMENT EXECUTE FUNCTION admin_actions_append_only();
