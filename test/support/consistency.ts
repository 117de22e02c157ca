// For the multi-instance and crash tests: a signed-in client of a server process, and the store's
// invariants checked in SQL (contiguous versions, positions in version order, projection at the head).
import type { EntityManager } from '@mikro-orm/postgresql';
import { createTestDatabase, type TestDatabase } from './database.js';
import { startServerProcess, type ServerProcess } from './process.js';

export const PROCESS_ADMIN = { email: 'reliability-admin@test.example', password: 'reliability-password-1234' };
export const PROCESS_SECRET = 'reliability-session-secret-0123456789-abcdef';

export interface ProcessApi {
  cookie: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  gql(query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: any }>;
}

async function parse(res: Response) {
  const text = await res.text();
  try {
    return { status: res.status, body: text ? JSON.parse(text) : null };
  } catch {
    return { status: res.status, body: text };
  }
}

/** A client of `url` acting with `cookie` (a session), sending the CSRF header on every call. */
export function sessionApi(url: string, cookie: string): ProcessApi {
  const headers = (json: boolean, extra: Record<string, string> = {}) => ({
    cookie,
    'x-csrf-protection': '1',
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...extra,
  });
  return {
    cookie,
    call: (method, path, body, extra) =>
      fetch(`${url}/api/v1${path}`, { method, headers: headers(body !== undefined, extra), body: body === undefined ? undefined : JSON.stringify(body) }).then(
        parse,
      ),
    gql: (query, variables) => fetch(`${url}/graphql`, { method: 'POST', headers: headers(true), body: JSON.stringify({ query, variables }) }).then(parse),
  };
}

export async function login(url: string, creds = PROCESS_ADMIN): Promise<ProcessApi> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(creds),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  return sessionApi(url, cookie);
}

import type { RebuildReport } from '../../server/application/tensions/tension.inputs.js';

export type { RebuildReport };

export async function dryRunRebuild(api: ProcessApi): Promise<RebuildReport> {
  const res = await api.gql('mutation { rebuildTensionProjection(dryRun: true) { streams events inserted updated deleted unchanged } }');
  if (!res.body?.data) throw new Error(`rebuild failed: ${JSON.stringify(res.body)}`);
  return res.body.data.rebuildTensionProjection;
}

export interface StoreCheck {
  events: number;
  streams: number;
  /** streams whose versions are not exactly 1..n */
  brokenStreams: string[];
  /** events whose position is not above the previous version's (positions have gaps, never disorder) */
  positionsOutOfOrder: number;
  /** events whose transaction id is below the previous version's: the feed would serve them first (Migration20261129200000) */
  transactionsOutOfOrder: number;
  duplicatePositions: number;
  duplicateEventIds: number;
  /** projection rows whose version is not their stream's head */
  rowsOffHead: number;
}

export async function checkEventStore(em: EntityManager): Promise<StoreCheck> {
  const [totals] = await em.execute(
    `select count(*)::int as events, count(distinct stream_id)::int as streams,
            (count(*) - count(distinct position))::int as dup_positions, (count(*) - count(distinct id))::int as dup_ids
     from domain_events`,
  );
  const [disorder] = await em.execute(
    `select count(*) filter (where e.position <= e.prev)::int as n, count(*) filter (where e.tid < e.prev_tid)::int as tids
     from (select position, lag(position) over w as prev, transaction_id as tid, lag(transaction_id) over w as prev_tid
           from domain_events window w as (partition by stream_type, stream_id order by version)) e`,
  );
  const broken: { stream_id: string }[] = await em.execute(
    `select stream_id from domain_events group by stream_type, stream_id
     having min(version) <> 1 or max(version) <> count(*) or count(distinct version) <> count(*)`,
  );
  const [off] = await em.execute(
    `select count(*)::int as n from tensions t
     where t.version <> (select max(version) from domain_events e where e.stream_type = 'tension' and e.stream_id = t.id)`,
  );
  return {
    events: totals.events,
    streams: totals.streams,
    brokenStreams: broken.map((b) => b.stream_id),
    positionsOutOfOrder: disorder.n,
    transactionsOutOfOrder: disorder.tids,
    duplicatePositions: totals.dup_positions,
    duplicateEventIds: totals.dup_ids,
    rowsOffHead: off.n,
  };
}

export const CONSISTENT = { brokenStreams: [], positionsOutOfOrder: 0, transactionsOutOfOrder: 0, duplicatePositions: 0, duplicateEventIds: 0, rowsOffHead: 0 };

/** Two server processes on one fresh PostgreSQL database; `b` uses the admin session `a` signed in with. */
export interface TwoInstances {
  db: TestDatabase;
  instances: ServerProcess[];
  a: ProcessApi;
  b: ProcessApi;
  stop(): Promise<void>;
}

export async function startTwoInstances(): Promise<TwoInstances> {
  const db = await createTestDatabase({ poolMax: 2 });
  const env = {
    DATABASE_URL: db.url!,
    SESSION_SECRET: PROCESS_SECRET,
    ADMIN_EMAIL: PROCESS_ADMIN.email,
    ADMIN_PASSWORD: PROCESS_ADMIN.password,
    DB_POOL_MAX: '5',
  };
  const instances: ServerProcess[] = [];
  const stop = async () => {
    for (const p of instances) await p.stop();
    await db.close();
  };
  try {
    // one after the other: the first start creates the admin
    instances.push(await startServerProcess(env));
    instances.push(await startServerProcess(env));
    const a = await login(instances[0].url);
    return { db, instances, a, b: sessionApi(instances[1].url, a.cookie), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
