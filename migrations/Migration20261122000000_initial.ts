import { Migration } from '@mikro-orm/migrations';

/** The whole schema of SPEC §2: identity, actors, the event store and the tension projection. */
export class Migration20261122000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table actors (
        id uuid primary key,
        name text not null check (char_length(name) between 1 and 200),
        type text not null check (type in ('organization', 'individual', 'virtual', 'agent')),
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index actors_name_idx on actors (lower(name), id);

      create table users (
        id uuid primary key,
        type text not null default 'human' check (type in ('human', 'agent')),
        email text not null check (email = lower(email)),
        name text not null,
        password_hash text,
        status text not null default 'active' check (status in ('active', 'deactivated')),
        linked_actor_id uuid references actors (id) on delete set null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        constraint users_agent_no_password check (type = 'human' or password_hash is null),
        constraint users_human_no_actor check (type = 'agent' or linked_actor_id is null)
      );
      create unique index users_email_key on users (email);
      create index users_linked_actor_idx on users (linked_actor_id);

      create table roles (
        id uuid primary key,
        code text not null unique,
        name text not null,
        permissions text[] not null default '{}',
        system boolean not null default false,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create table role_inherits (
        role_id uuid not null references roles (id) on delete cascade,
        inherited_role_id uuid not null references roles (id) on delete restrict,
        primary key (role_id, inherited_role_id),
        check (role_id <> inherited_role_id)
      );
      create index role_inherits_inherited_idx on role_inherits (inherited_role_id);
      create table user_roles (
        user_id uuid not null references users (id) on delete cascade,
        role_id uuid not null references roles (id) on delete restrict,
        primary key (user_id, role_id)
      );
      create index user_roles_role_idx on user_roles (role_id);

      create table api_keys (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        name text not null,
        prefix text not null,
        key_hash text not null unique,
        created_at timestamptz not null,
        last_used_at timestamptz,
        expires_at timestamptz,
        revoked_at timestamptz
      );
      create index api_keys_user_idx on api_keys (user_id, created_at desc, id);

      create table sessions (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        revoked_at timestamptz
      );
      create index sessions_user_idx on sessions (user_id);

      -- One row that hands out event positions: its row lock is held to commit, so positions are
      -- gap-free and in commit order (a rolled-back append rolls its numbers back too).
      create table domain_event_head (
        id boolean primary key default true check (id),
        position bigint not null
      );
      insert into domain_event_head (id, position) values (true, 0);

      create table domain_events (
        position bigint primary key,
        id uuid not null unique,
        stream_type text not null,
        stream_id uuid not null,
        version integer not null check (version >= 1),
        type text not null,
        schema_version integer not null default 1,
        data jsonb not null,
        metadata jsonb not null,
        occurred_at timestamptz not null,
        constraint domain_events_stream_version_key unique (stream_type, stream_id, version)
      );

      create function domain_events_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'domain_events is append-only: % refused', tg_op using errcode = 'P0001';
      end
      $$;
      create trigger domain_events_no_update_delete before update or delete on domain_events
        for each row execute function domain_events_append_only();
      create trigger domain_events_no_truncate before truncate on domain_events
        for each statement execute function domain_events_append_only();

      create table tensions (
        id uuid primary key,
        name text not null,
        current_context text,
        potential_future text,
        score smallint not null check (score between 1 and 10),
        state text not null check (state in ('alive', 'resolved', 'stale')),
        actor_id uuid not null references actors (id) on delete restrict,
        lead_user_id uuid references users (id) on delete set null,
        version integer not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index tensions_actor_idx on tensions (actor_id);
      create index tensions_lead_idx on tensions (lead_user_id);
      create index tensions_score_idx on tensions (score desc, id);
      create index tensions_updated_idx on tensions (updated_at desc, id);
      create index tensions_created_idx on tensions (created_at desc, id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table if exists tensions;
      drop table if exists domain_events;
      drop function if exists domain_events_append_only();
      drop table if exists domain_event_head;
      drop table if exists sessions;
      drop table if exists api_keys;
      drop table if exists user_roles;
      drop table if exists role_inherits;
      drop table if exists roles;
      drop table if exists users;
      drop table if exists actors;
    `);
  }
}
