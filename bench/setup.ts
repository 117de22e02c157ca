// Provisions the bench: an agent key through the API, a sample of tensions sensed through the API,
// and the bulk written by SQL exactly as the command path writes it (validated by a dry-run rebuild).
import { Api, pool } from './lib/api.js';
import type { BenchDatabase } from './lib/pg.js';
import { FRESH_BASE, LONG_BASE, POOL_BASE, REBUILD_BASE, tensionId, type Sizes } from './lib/sizes.js';

export interface Provisioned {
  key: string;
  agentUserId: string;
  actorId: string;
  sampleIds: string[];
}

export async function provisionAgent(url: string): Promise<Omit<Provisioned, 'sampleIds'>> {
  const admin = await Api.loginAdmin(url);
  const role = await admin.call('POST', '/roles', {
    code: `bench-agent-${Date.now()}`,
    name: 'Bench agent',
    permissions: ['tensions:read', 'tensions:write', 'actors:read'],
  });
  const agent = await admin.call('POST', '/users', {
    type: 'agent',
    email: `bench-agent-${Date.now()}@example.com`,
    name: 'Bench agent',
    roleIds: [role.id],
  });
  const { key } = await admin.call('POST', `/users/${agent.id}/api-keys`, { name: 'bench' });
  const actor = await admin.call('POST', '/actors', { name: 'Bench organization', type: 'organization' });
  return { key, agentUserId: agent.id, actorId: actor.id };
}

/** A key that may only follow the event feed (`events:read`): the SSE subscribers'. */
/** Keys of `users` feed readers: a user holds at most 20 open streams (SPEC §7), so 100 subscribers need 5. */
export async function provisionReaders(url: string, users: number): Promise<string[]> {
  const admin = await Api.loginAdmin(url);
  const role = await admin.call('POST', '/roles', { code: `bench-reader-${Date.now()}`, name: 'Bench feed reader', permissions: ['events:read'] });
  const keys: string[] = [];
  for (let i = 0; i < users; i++) {
    const user = await admin.call('POST', '/users', {
      type: 'agent',
      email: `bench-reader-${Date.now()}-${i}@example.com`,
      name: `Bench feed reader ${i}`,
      roleIds: [role.id],
    });
    keys.push((await admin.call('POST', `/users/${user.id}/api-keys`, { name: 'bench-feed' })).key);
  }
  return keys;
}

/** Senses `count` tensions through REST with the agent's key, and rescores one (the template of a rescore). */
export async function senseSample(url: string, key: string, actorId: string, count: number): Promise<string[]> {
  const api = new Api(url).withKey(key);
  const ids: string[] = [];
  await pool(count, 4, async (i) => {
    const res = await api.call('POST', '/tensions', { name: `Sensed tension ${i}`, actorId, score: 5 });
    ids.push(res.tension.id);
  });
  await api.call('POST', `/tensions/${ids[0]}/rescore`, { score: 6 });
  return ids;
}

const uuidOf = (n: string) => `('00000000-0000-4000-8000-' || (100000000000 + ${n}))`;
/** The score at version v of a bulk stream: 5, 6, …, 10, 1, 2, … (never equal to the previous one) */
const scoreAt = (v: string) => `((4 + ${v} - 1) % 10 + 1)`;

/**
 * Appends `count` streams of `events` events (TensionSensed, then TensionRescored…) from the API sample's
 * data and metadata, with positions from the sequence, and their projection rows as `evolve`
 * folds them. Chunks keep each transaction bounded.
 */
export async function bulkStreams(db: BenchDatabase, base: number, count: number, events: number, log: (s: string) => void) {
  const chunk = Math.max(1, Math.floor(200_000 / events));
  for (let from = base; from < base + count; from += chunk) {
    const n = Math.min(chunk, base + count - from);
    await db.query('begin');
    try {
      // positions from the sequence (the column default), in (stream, version) order
      await db.query(
        `with s as (select data, metadata from domain_events where type = 'TensionSensed' order by position limit 1),
              r as (select metadata from domain_events where type = 'TensionRescored' order by position limit 1)
         insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
         select gen_random_uuid(), 'tension', ${uuidOf('g.n')}::uuid, v.v,
           case when v.v = 1 then 'TensionSensed' else 'TensionRescored' end, 1,
           case when v.v = 1 then s.data || jsonb_build_object('id', ${uuidOf('g.n')}, 'name', 'Bench tension ' || g.n, 'score', 5)
                else jsonb_build_object('score', ${scoreAt('v.v')}, 'previousScore', ${scoreAt('(v.v - 1)')}) end,
           (case when v.v = 1 then s.metadata else r.metadata end) || jsonb_build_object('requestId', 'bench-setup'),
           date_trunc('second', now()) - interval '1 day' + v.v * interval '1 millisecond'
         from generate_series($1::int, $1 + $2 - 1) g(n) cross join generate_series(1, $3::int) v(v), s, r
         order by g.n, v.v`,
        [from, n, events],
      );
      await db.query(
        `with s as (select data from domain_events where type = 'TensionSensed' order by position limit 1)
         insert into tensions (id, name, current_context, potential_future, score, state, actor_id, lead_user_id, version, created_at, updated_at)
         select ${uuidOf('g.n')}::uuid, 'Bench tension ' || g.n, null, null, ${scoreAt('$3')}, 'alive', (s.data->>'actorId')::uuid, null, $3,
           date_trunc('second', now()) - interval '1 day' + interval '1 millisecond',
           date_trunc('second', now()) - interval '1 day' + $3 * interval '1 millisecond'
         from generate_series($1::int, $1 + $2 - 1) g(n), s`,
        [from, n, events],
      );
      await db.query('commit');
    } catch (err) {
      await db.query('rollback');
      throw err;
    }
    log(`  streams ${from - base + n}/${count} (${events} events each)`);
  }
}

export async function bulkLoad(db: BenchDatabase, sizes: Sizes, log: (s: string) => void) {
  log(`bulk: ${sizes.tensions - 0} pool tensions`);
  await bulkStreams(db, POOL_BASE, sizes.tensions, 1, log);
  log(`bulk: ${sizes.longStreams} streams of ${sizes.longEvents} events`);
  await bulkStreams(db, LONG_BASE, sizes.longStreams, sizes.longEvents, log);
  await bulkStreams(db, FRESH_BASE, sizes.longStreams * sizes.rounds, 1, log);
  log(`bulk: ${sizes.rebuildStreams} streams of ${sizes.rebuildEventsPerStream} events (rebuild set)`);
  await bulkStreams(db, REBUILD_BASE, sizes.rebuildStreams, sizes.rebuildEventsPerStream, log);
  await db.query('vacuum analyze domain_events');
  await db.query('vacuum analyze tensions');
}

/** Current scores of pool tensions, so each HTTP rescore asks for a different score (always an append). */
export async function poolScores(db: BenchDatabase, ids: string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ id: string; score: number }>('select id, score from tensions where id = any($1::uuid[])', [ids]);
  return new Map(rows.map((r) => [r.id, Number(r.score)]));
}

export const longIds = (sizes: Sizes) => Array.from({ length: sizes.longStreams }, (_, i) => tensionId(LONG_BASE + i));
/** The fresh one-event streams of round `r` (1-based), as many as the long streams. */
export const freshIds = (sizes: Sizes, r: number) =>
  Array.from({ length: sizes.longStreams }, (_, i) => tensionId(FRESH_BASE + (r - 1) * sizes.longStreams + i));
export const poolIds = (sizes: Sizes) => Array.from({ length: sizes.tensions }, (_, i) => tensionId(POOL_BASE + i));
