// The operator dashboard's reads (issue 36): sums over the rollups of Migration20261126130000, the front of an
// index, or a handful of rows. None of them walks the tensions, the events or the audit trail.
import type { EntityManager } from '@mikro-orm/postgresql';

const num = (v: number | string | null | undefined): number => Number(v ?? 0);
const day = (v: Date | string): string => (typeof v === 'string' ? v.slice(0, 10) : v.toISOString().slice(0, 10));

export interface CountBy<K> {
  key: K;
  count: number;
}

/** Tension rows by state and by score (of alive tensions), summed from `tension_load`. */
export async function tensionTotals(em: EntityManager): Promise<{ byState: CountBy<string>[]; aliveByScore: CountBy<number>[] }> {
  const rows: { state: string; score: number; n: string | number }[] = await em.execute(
    'select state, score, sum(n) as n from tension_load group by state, score having sum(n) > 0 order by state, score',
  );
  const byState = new Map<string, number>();
  const aliveByScore = new Map<number, number>();
  for (const r of rows) {
    byState.set(r.state, (byState.get(r.state) ?? 0) + num(r.n));
    if (r.state === 'alive') aliveByScore.set(Number(r.score), num(r.n));
  }
  return {
    byState: [...byState].map(([key, count]) => ({ key, count })),
    aliveByScore: [...aliveByScore].map(([key, count]) => ({ key, count })),
  };
}

export interface FlowDay {
  day: string;
  type: string;
  count: number;
  scoreSum: number;
}

/** Tension events per UTC day and type in [from, to), from `tension_flow_days`. */
export async function tensionFlows(em: EntityManager, from: string, to: string): Promise<FlowDay[]> {
  const rows: { day: Date | string; type: string; n: string | number; score_sum: string | number }[] = await em.execute(
    `select day, type, sum(n) as n, sum(score_sum) as score_sum from tension_flow_days
      where day >= ?::date and day < ?::date group by day, type order by day, type`,
    [from, to],
  );
  return rows.map((r) => ({ day: day(r.day), type: r.type, count: num(r.n), scoreSum: num(r.score_sum) }));
}

export interface OldestTension {
  id: string;
  name: string;
  score: number;
  actorName: string;
  createdAt: Date;
}

/** The oldest alive tensions, from the front of `tensions_state_created_idx`. */
export async function oldestAliveTensions(em: EntityManager, limit: number): Promise<OldestTension[]> {
  const rows: { id: string; name: string; score: number; actor_name: string; created_at: Date | string }[] = await em.execute(
    `select t.id, t.name, t.score, a.name as actor_name, t.created_at from tensions t join actors a on a.id = t.actor_id
      where t.state = 'alive' order by t.created_at, t.id limit ?`,
    [limit],
  );
  return rows.map((r) => ({ id: r.id, name: r.name, score: Number(r.score), actorName: r.actor_name, createdAt: new Date(r.created_at) }));
}

export interface ActorLoad {
  actorId: string;
  actorName: string;
  alive: number;
  total: number;
}

/** The actors with the most alive tensions, from `tension_load`. */
export async function actorLoad(em: EntityManager, limit: number): Promise<ActorLoad[]> {
  const rows: { actor_id: string; name: string; alive: string | number; total: string | number }[] = await em.execute(
    `select l.actor_id, a.name, l.alive, l.total from (
        select actor_id, sum(n) filter (where state = 'alive') as alive, sum(n) as total from tension_load group by actor_id
      ) l join actors a on a.id = l.actor_id
      where l.alive > 0 order by l.alive desc, a.name, l.actor_id limit ?`,
    [limit],
  );
  return rows.map((r) => ({ actorId: r.actor_id, actorName: r.name, alive: num(r.alive), total: num(r.total) }));
}

export interface KeyUseDay {
  keyId: string;
  keyName: string;
  prefix: string;
  userId: string;
  userName: string;
  day: string;
  requests: number;
}

/** Requests per key per UTC day in [from, to), from `api_key_use_days`. */
export async function keyUseDays(em: EntityManager, from: string, to: string): Promise<KeyUseDay[]> {
  const rows: { key_id: string; name: string; prefix: string; user_id: string; user_name: string; day: Date | string; requests: string | number }[] =
    await em.execute(
      `select d.key_id, k.name, k.prefix, k.user_id, u.name as user_name, d.day, d.requests
         from api_key_use_days d join api_keys k on k.id = d.key_id join users u on u.id = k.user_id
        where d.day >= ?::date and d.day < ?::date order by d.day, k.name, d.key_id`,
      [from, to],
    );
  return rows.map((r) => ({
    keyId: r.key_id,
    keyName: r.name,
    prefix: r.prefix,
    userId: r.user_id,
    userName: r.user_name,
    day: day(r.day),
    requests: num(r.requests),
  }));
}

/** Failed and throttled sign-ins per UTC day in [from, to), counted on the audit trail's `(action, at)` index. */
export async function signInFailureDays(em: EntityManager, from: Date, to: Date): Promise<{ day: string; failed: number; throttled: number }[]> {
  const rows: { day: Date | string; failed: string | number; throttled: string | number }[] = await em.execute(
    `select (at at time zone 'UTC')::date as day, count(*) filter (where action = 'auth.login_failed') as failed,
            count(*) filter (where action = 'auth.login_throttled') as throttled
       from audit_log where action in ('auth.login_failed', 'auth.login_throttled') and at >= ? and at < ?
      group by 1 order by 1`,
    [from, to],
  );
  return rows.map((r) => ({ day: day(r.day), failed: num(r.failed), throttled: num(r.throttled) }));
}

export interface RelayHealth {
  name: string;
  behind: number;
  published: number;
  leaseActive: boolean;
  updatedAt: Date;
}

/** The feed's newest position and each relay's distance from it. */
export async function feedHealth(em: EntityManager, now: Date): Promise<{ headPosition: number; relays: RelayHealth[] }> {
  const [head]: { position: string | number | null }[] = await em.execute('select max(position) as position from domain_events');
  const headPosition = num(head?.position);
  const rows: { name: string; position: string | number; published: string | number; lease_until: Date | string | null; updated_at: Date | string }[] =
    await em.execute('select name, position, published, lease_until, updated_at from feed_relays order by name');
  return {
    headPosition,
    relays: rows.map((r) => ({
      name: r.name,
      behind: Math.max(0, headPosition - num(r.position)),
      published: num(r.published),
      leaseActive: r.lease_until !== null && new Date(r.lease_until).getTime() > now.getTime(),
      updatedAt: new Date(r.updated_at),
    })),
  };
}

export interface WebhookHealth {
  endpoints: number;
  enabled: number;
  failing: number;
  disabled: number;
  retrying: number;
}

/** Webhook endpoints by health, and the deliveries waiting for a retry (the retry index's rows). */
export async function webhookHealth(em: EntityManager): Promise<WebhookHealth> {
  const [e]: Record<string, string | number>[] = await em.execute(
    `select count(*) as endpoints, count(*) filter (where enabled) as enabled,
            count(*) filter (where enabled and failing_since is not null) as failing, count(*) filter (where not enabled) as disabled
       from webhook_endpoints`,
  );
  const [d]: { n: string | number }[] = await em.execute(
    `select count(*) as n from webhook_deliveries where attempts > 0 and status in ('pending', 'retrying') and next_attempt_at is not null`,
  );
  return { endpoints: num(e.endpoints), enabled: num(e.enabled), failing: num(e.failing), disabled: num(e.disabled), retrying: num(d.n) };
}
