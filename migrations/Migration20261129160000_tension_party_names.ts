import { Migration } from '@mikro-orm/migrations';

/**
 * The tension list under `sort=actor` and `sort=lead` orders by the party's name, `lower(name)` (issue 37).
 * Until now it walked the parties (actors, users) in name order and read each one's tensions, one index
 * descent per party: a common word's search at a million tensions and 100,000 parties read about 2,500
 * parties a page, 28–42 × a tension's read where the column sorts take 5 ×. Each tension now carries its
 * actor's and its lead's sort name, `actor_sort` and `lead_sort` (null without a lead), and the list reads
 * `(actor_sort, actor_id, id)` / `(lead_sort, lead_user_id, id)` as a column sort reads its index, and the
 * tensions without a lead by id (two partial indexes: each tension is in one). Those replace `(actor_id, id)`
 * and `(lead_user_id, id)` (Migration20261128150000), which only that walk read, so a rescore still writes
 * as many index entries.
 *
 * Kept for every writer alike (commands, the rebuild, import, bulk SQL):
 * - a tension written with a party it did not have reads the party's name in a trigger (`for share`: a
 *   rename of that party waits for it or goes first, so neither misses the other; a rescore, which changes
 *   no party, reads nothing: the trigger's condition compares the two ids);
 * - renaming an actor or a user (in letters, not only their case) records its old name in
 *   `tension_party_name_syncs`, and syncTensionPartyNames (server/persistence/tension-party-names.ts) then
 *   rewrites its tensions' copy a thousand at a time, each batch its own short transaction: run after each
 *   rename through the service, at every start and every housekeeping round. Rewriting them in the rename's
 *   transaction cost 0.37 ms a tension (a party with 100,000: 37 s, past the statement limit, every row
 *   locked meanwhile). Until a party's batches are done its tensions list under its old name.
 * The `tensions` projection's state is unchanged: these columns follow the parties' tables, not the events.
 * `actor_sort` stays nullable: a tension naming a missing actor must still fail as the foreign key says
 * (23503), not as a missing name.
 * Adding them rewrites `tensions` under an exclusive lock, as Migration20261129090000 did.
 */
export class Migration20261129160000_tension_party_names extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table tensions add column actor_sort text, add column lead_sort text;
      -- Filled by one rewrite of the table, its indexes built once after it: an UPDATE re-inserted every row
      -- into each of the table's indexes (a million tensions: 9 minutes, against about half a minute).
      create function migration_actor_sort(party uuid) returns text language sql stable as $$ select lower(name) from actors where id = party $$;
      create function migration_lead_sort(party uuid) returns text language sql stable as $$ select lower(name) from users where id = party $$;
      alter table tensions alter column actor_sort type text using migration_actor_sort(actor_id),
        alter column lead_sort type text using migration_lead_sort(lead_user_id);
      drop function migration_actor_sort(uuid);
      drop function migration_lead_sort(uuid);

      create function tension_party_names() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' or new.actor_id is distinct from old.actor_id then
          select lower(a.name) into new.actor_sort from actors a where a.id = new.actor_id for share;
        end if;
        if tg_op = 'INSERT' or new.lead_user_id is distinct from old.lead_user_id then
          new.lead_sort := null;
          if new.lead_user_id is not null then
            select lower(u.name) into new.lead_sort from users u where u.id = new.lead_user_id for share;
          end if;
        end if;
        return new;
      end $$;
      create trigger tension_party_names_insert before insert on tensions
        for each row execute function tension_party_names();
      create trigger tension_party_names_update before update of actor_id, lead_user_id on tensions
        for each row when (old.actor_id is distinct from new.actor_id or old.lead_user_id is distinct from new.lead_user_id)
        execute function tension_party_names();

      -- A rename leaves its old name to be replaced on its tensions, a batch at a time, after it commits
      -- (syncTensionPartyNames): in the rename's transaction, a party with 100,000 tensions took 37 s and
      -- held every one of their rows.
      create table tension_party_name_syncs (
        party_kind text not null check (party_kind in ('actor', 'user')),
        party_id uuid not null,
        stale_name text not null,
        primary key (party_kind, party_id, stale_name)
      );
      create function party_name_changed() returns trigger language plpgsql as $$
      begin
        insert into tension_party_name_syncs (party_kind, party_id, stale_name)
          values (tg_argv[0], new.id, lower(old.name)) on conflict do nothing;
        return null;
      end $$;
      create trigger actor_name_changed after update of name on actors
        for each row when (lower(old.name) is distinct from lower(new.name)) execute function party_name_changed('actor');
      create trigger user_name_changed after update of name on users
        for each row when (lower(old.name) is distinct from lower(new.name)) execute function party_name_changed('user');

      drop index tensions_actor_id_idx;
      drop index tensions_lead_id_idx;
      create index tensions_actor_sort_idx on tensions (actor_sort, actor_id, id);
      create index tensions_lead_sort_idx on tensions (lead_sort, lead_user_id, id) where lead_user_id is not null;
      create index tensions_no_lead_idx on tensions (id) where lead_user_id is null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index tensions_no_lead_idx;
      drop index tensions_lead_sort_idx;
      drop index tensions_actor_sort_idx;
      create index tensions_actor_id_idx on tensions (actor_id, id);
      create index tensions_lead_id_idx on tensions (lead_user_id, id);
      drop trigger user_name_changed on users;
      drop trigger actor_name_changed on actors;
      drop function party_name_changed();
      drop table tension_party_name_syncs;
      drop trigger tension_party_names_update on tensions;
      drop trigger tension_party_names_insert on tensions;
      drop function tension_party_names();
      alter table tensions drop column lead_sort, drop column actor_sort;
    `);
  }
}
