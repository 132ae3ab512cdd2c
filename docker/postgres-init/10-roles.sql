-- The two roles of docs/database-roles.md, for the compose profile: run once by the postgres
-- image on an empty volume, as its superuser, in the payments database.
CREATE ROLE payments_owner LOGIN PASSWORD 'payments-owner';
CREATE ROLE payments_app LOGIN PASSWORD 'payments-app';
ALTER DATABASE payments OWNER TO payments_owner;
ALTER SCHEMA public OWNER TO payments_owner;
REVOKE ALL ON DATABASE payments FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE payments TO payments_app;
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO payments_app;
ALTER DEFAULT PRIVILEGES FOR ROLE payments_owner IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO payments_app;
ALTER DEFAULT PRIVILEGES FOR ROLE payments_owner IN SCHEMA public
  GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO payments_app;
ALTER DEFAULT PRIVILEGES FOR ROLE payments_owner IN SCHEMA public
  GRANT EXECUTE ON ROUTINES TO payments_app;
