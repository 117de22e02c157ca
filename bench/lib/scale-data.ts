// Bulk data at scale (issue 37), written by SQL exactly as the command path writes it: actors, agent users,
// and tensions whose streams (TensionSensed, two TensionRescored, then TensionResolved / TensionDropped /
// TensionDropped + TensionRevived) and projection rows are what the commands and `evolve` produce. Shared by
// `npm run bench -- --only scale` and the plan-shape test, so both measure the same shape of data.
import { createHash } from 'node:crypto';

/** Runs one statement; pg's `Client.query` (rows) or an EntityManager's `execute` both fit. */
export type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

export interface ScaleSizes {
  tensions: number;
  actors: number;
  users: number;
  /** audit trail entries (actor creations by a system caller) */
  audit: number;
  /**
   * pairs of rescores more in each tension's stream, after its two (back and forth, so its score ends the
   * same): the feed at ten million events with a tenth of the tensions (`--scale-rescores`, default 0)
   */
  rescores?: number;
}

/**
 * The words of the texts: 8,000 pseudo-words of three syllables, drawn uniformly into 25 slots per tension,
 * so any one word is in about 0.3 % of tensions (the issue's "common word": 3,078 of 1,000,000). `RARE_WORD`
 * is in one tension of `tensions / 34` (34 matches, whatever the size); `NO_MATCH_WORD` is in none.
 */
const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'te', 'su', 'no', 'vi', 'de', 'po', 'an', 'el', 'or', 'us', 'ix', 'be', 'tro', 'gan', 'fel', 'mur'];
export const RARE_WORD = 'quillwort';
export const NO_MATCH_WORD = 'xylograph';
/** The word of vocabulary index `i` (0–7,999), as the SQL below spells it. */
export function word(i: number): string {
  return SYLLABLES[i % 20] + SYLLABLES[Math.floor(i / 20) % 20] + SYLLABLES[Math.floor(i / 400) % 20];
}

const SYL = `('{${SYLLABLES.join(',')}}'::text[])`;
/** A deterministic pseudo-random integer 0…2^28-1 of the row `n` and a salt. */
const hash = (n: string, salt: string) => `(('x' || substr(md5(${n}::text || '${salt}'), 1, 7))::bit(28)::int)`;
const wordSql = (i: string) => `(${SYL}[(${i}) % 20 + 1] || ${SYL}[(${i}) / 20 % 20 + 1] || ${SYL}[(${i}) / 400 % 20 + 1])`;
const words = (n: string, salt: string, count: number) =>
  `(select string_agg(${wordSql(`${hash(`${n} || '.' || k`, salt)} % 8000`)}, ' ' order by k) from generate_series(1, ${count}) k)`;

/**
 * Tension `n`'s id: a version-4 UUID drawn from `md5('tension ' || n)`, so ids are in no relation to the order
 * rows are written in, as the service's random ids are (each a fresh `randomUUID()`). With ids that grew with
 * `n`, as they did before 2026-11-29 evening, a list's tie-break by id read the heap in its own order: the
 * column sorts' ties (a score's 100,000 rows) were read a page at a time while every other order read a page a row.
 */
export const scaleTensionId = (n: number) => v4Shape(createHash('md5').update(`tension ${n}`).digest('hex'));
const v4Shape = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
/** scaleTensionId in SQL, of the integer expression `n`. */
export const scaleTensionIdSql = (n: string) => `(overlay(overlay(md5('tension ' || (${n})::int) placing '4' from 13) placing '8' from 17))::uuid`;
export const scaleActorId = (n: number) => `00000000-0000-4000-a000-${String(n).padStart(12, '0')}`;
export const scaleUserId = (n: number) => `00000000-0000-4000-b000-${String(n).padStart(12, '0')}`;
const idSql = (kind: string, n: string) => `('00000000-0000-4000-${kind}-' || lpad((${n})::text, 12, '0'))::uuid`;

/** The agent every bulk event names as its author (metadata as `eventMetadata` writes it for a key caller). */
const METADATA = `jsonb_build_object('actorKind', 'agent', 'userId', ${idSql('b000', '1')}, 'userName', 'Scale user 1',
  'apiKeyId', null, 'apiKeyName', null, 'via', 'rest', 'requestId', 'scale-setup', 'correlationId', null, 'causationId', null)`;

const CHUNK = 20_000;

/** Writes the bulk in chunks (each its own transaction); `log` hears the progress. */
export async function writeScaleData(query: Query, sizes: ScaleSizes, log: (s: string) => void = () => undefined): Promise<void> {
  // the extra rescores a stream holds (an even number, so that its score ends where it did)
  const extra = 2 * Math.max(0, Math.trunc(sizes.rescores ?? 0));
  const at = `timestamptz '2024-01-01 00:00:00+00'`;
  await query(
    `insert into actors (id, name, type, created_at, updated_at)
     select ${idSql('a000', 'g')}, initcap(${words('g', 'a', 2)}) || ' ' || g, (array['organization','individual','virtual','agent'])[g % 4 + 1],
            ${at} + g * interval '1 second', ${at} + g * interval '1 second'
     from generate_series(1, $1::int) g`,
    [sizes.actors],
  );
  await query(
    `insert into users (id, type, email, name, password_hash, status, created_at, updated_at)
     select ${idSql('b000', 'g')}, 'agent', 'scale-user-' || g || '@example.com', initcap(${words('g', 'u', 2)}) || ' ' || g, null,
            'active', ${at} + g * interval '1 second', ${at} + g * interval '1 second'
     from generate_series(1, $1::int) g`,
    [sizes.users],
  );
  log(`scale: ${sizes.actors} actors, ${sizes.users} users`);
  const rareEvery = Math.max(1, Math.floor(sizes.tensions / 34));
  for (let from = 1; from <= sizes.tensions; from += CHUNK) {
    const to = Math.min(sizes.tensions, from + CHUNK - 1);
    await query('begin');
    try {
      // The feed lock before the transaction gets its id, as every transaction that appends takes it.
      await query('select market_feed_lock()');
      // One row per tension: everything its events and its projection row are made of.
      await query(`create temporary table scale_spec on commit drop as
        select g as n, ${scaleTensionIdSql('g')} as id,
          initcap(${words('g', 'n', 3)}) || ' ' || g as name,
          case when g % 7 = 0 then null else ${words('g', 'c', 12)} end as current_context,
          case when g % 5 = 0 then null else ${words('g', 'f', 10)} || case when g % ${rareEvery} = 0 then ' ${RARE_WORD}' else '' end end as potential_future,
          ${hash('g', 's1')} % 10 + 1 as score1,
          ${idSql('a000', `${hash('g', 'a')} % ${sizes.actors} + 1`)} as actor_id,
          ${idSql('b000', `${hash('g', 'l')} % ${sizes.users} + 1`)} as lead_id,
          g % 3 <> 0 as has_lead,
          case when g % 4000 = 0 then 'revived' when ${hash('g', 'st')} % 100 < 80 then 'alive'
               when ${hash('g', 'st')} % 100 < 92 then 'resolved' else 'stale' end as kind,
          ${at} + g * interval '30 seconds' as t0,
          (${hash('g', 't')} % 86400 + 1) * interval '1 second' as step
        from generate_series(${from}, ${to}) g`);
      await query(`alter table scale_spec add column score2 int, add column score3 int, add column events int`);
      await query(`update scale_spec set score2 = score1 % 10 + 1, score3 = (score1 + 1) % 10 + 1,
        events = case kind when 'alive' then 3 when 'revived' then 5 else 4 end + ${extra}`);
      // In (stream, version) order, so positions number each stream's events in version order.
      await query(
        `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
         select gen_random_uuid(), 'tension', s.id, e.v, e.type, 1, e.data, ${METADATA}, s.t0 + (e.v - 1) * s.step
         from scale_spec s
         join actors a on a.id = s.actor_id
         left join users u on u.id = s.lead_id and s.has_lead
         cross join lateral (
           select * from (values
             (1, 'TensionSensed', jsonb_build_object('id', s.id, 'name', s.name, 'currentContext', s.current_context,
                'potentialFuture', s.potential_future, 'score', s.score1, 'state', 'alive', 'actorId', s.actor_id,
                'actorName', a.name, 'leadUserId', u.id, 'leadName', u.name)),
             (2, 'TensionRescored', jsonb_build_object('score', s.score2, 'previousScore', s.score1)),
             (3, 'TensionRescored', jsonb_build_object('score', s.score3, 'previousScore', s.score2)),
             (4 + ${extra}, case s.kind when 'resolved' then 'TensionResolved' else 'TensionDropped' end, '{}'::jsonb),
             (5 + ${extra}, 'TensionRevived', '{}'::jsonb)) base (v, type, data)
           union all
           -- the extra pairs: to score2 and back to score3
           select 3 + x, 'TensionRescored', case when x % 2 = 1 then jsonb_build_object('score', s.score2, 'previousScore', s.score3)
             else jsonb_build_object('score', s.score3, 'previousScore', s.score2) end
           from generate_series(1, ${extra}) x
         ) e(v, type, data)
         where e.v <= s.events
         order by s.n, e.v`,
      );
      await query(
        `insert into tensions (id, name, current_context, potential_future, score, state, actor_id, lead_user_id, version, created_at, updated_at)
         select s.id, s.name, s.current_context, s.potential_future, s.score3,
           case s.kind when 'resolved' then 'resolved' when 'stale' then 'stale' else 'alive' end,
           s.actor_id, case when s.has_lead then s.lead_id end, s.events, s.t0, s.t0 + (s.events - 1) * s.step
         from scale_spec s order by s.n`,
      );
      await query('commit');
    } catch (err) {
      await query('rollback');
      throw err;
    }
    log(`scale: tensions ${to}/${sizes.tensions}`);
  }
  if (sizes.audit > 0) {
    await query(
      `insert into audit_log (id, at, action, by_kind, by_user_id, by_user_name, via, target_type, target_id, target_label, changes, request_id)
       select gen_random_uuid(), ${at} + g * interval '1 second',
         (array['actor.created','actor.updated','user.updated','auth.login_succeeded','auth.login_failed'])[g % 5 + 1],
         'agent', ${idSql('b000', `g % ${Math.max(1, sizes.users)} + 1`)}, 'Scale user', 'rest', 'actor',
         ${idSql('a000', `g % ${Math.max(1, sizes.actors)} + 1`)}, 'Scale actor', '{}'::jsonb, 'scale-setup'
       from generate_series(1, $1::int) g`,
      [sizes.audit],
    );
  }
  // What autovacuum does to a table written in bulk (inserts alone start it since PostgreSQL 13): its
  // statistics, and the visibility map that lets a walked search read the sort's index alone
  // (Migration20261130130000). These machines' PostgreSQL runs without autovacuum.
  for (const table of ['actors', 'users', 'tensions', 'domain_events', 'audit_log']) await query(`vacuum analyze ${table}`);
}
