-- A database role for the running service that cannot rewrite history: it reads and writes what the
-- service needs, but may only INSERT into domain_events and audit_log (no UPDATE, DELETE or TRUNCATE, and, not being
-- the owner, it cannot drop or disable the append-only triggers either). Migrations run as the owner.
--
--   psql "$OWNER_DATABASE_URL" -v app_role=market_app -v app_password="'…'" -f scripts/app-role.sql
--
-- Run it again after each `market-service migrate`: grants cover the tables that exist when it runs.
\set ON_ERROR_STOP on
select format('create role %I login password %s', :'app_role', :'app_password')
  where not exists (select 1 from pg_roles where rolname = :'app_role') \gexec
select format('grant connect on database %I to %I', current_database(), :'app_role') \gexec
select format('grant usage on schema public to %I', :'app_role') \gexec
select format('grant select, insert, update, delete on all tables in schema public to %I', :'app_role') \gexec
select format('grant usage, select on all sequences in schema public to %I', :'app_role') \gexec
select format('revoke update, delete, truncate on domain_events from %I', :'app_role') \gexec
select format('revoke update, delete, truncate on audit_log from %I', :'app_role') \gexec
select format('revoke insert, update, delete, truncate on mikro_orm_migrations from %I', :'app_role') \gexec
