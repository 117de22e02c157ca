// The SQL ceiling: the essential work of one REST rescore (read the tension's row; then, in one
// statement committed on its own, update the row conditionally on the version read and insert the event)
// with no lock shared by all writers and none of this design's extra checks, replayed by pgbench, each
// client on its own slice so clients never conflict. Two round trips, as the service needs: an explicit
// BEGIN/COMMIT around three statements would put three round trips the design avoids into the baseline,
// and the ratio would hide them. With prepared statements (`-M prepared`: each statement planned once per
// connection), what the machine can do; with `-M simple` (planned at every execution), for comparison.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchDatabase } from './lib/pg.js';

const run = promisify(execFile);
const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';

// The read is loadTensionRow's (server/persistence/tension-projection.ts); the update is the projection half of
// writeTensionCommand (the client gets the read shape back); the insert is its event half without the guard.
const TENSION_SELECT = `select t.id, t.name, t.current_context, t.potential_future, t.score, t.state, t.actor_id,
    t.lead_user_id, t.version, t.created_at, t.updated_at,
    a.name as actor_name, a.type as actor_type, u.name as lead_name, u.type as lead_type`;
const TENSION_FROM = `join actors a on a.id = t.actor_id left join users u on u.id = t.lead_user_id`;
export type PgbenchMode = 'simple' | 'prepared';

/**
 * One line per SQL command (pgbench ends a command at `;` or `\gset`). In prepared mode pgbench turns
 * every `:name` into a parameter, quoted or not, so there the variables stand unquoted, the event data is
 * built with jsonb_build_object, and no `:` in the metadata literal is followed by a name character.
 */
export function rescoreScript(metadata: Record<string, unknown>, perClient: number, mode: PgbenchMode): string {
  const prepared = mode === 'prepared';
  const meta = JSON.stringify(metadata)
    .replace(/'/g, "''")
    .replace(/":(?=\w)/g, '": ');
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
  const ID = prepared ? `('00000000-0000-4000-8000-' || :n)` : `'00000000-0000-4000-8000-:n'`;
  const text = (v: string) => (prepared ? `:${v}` : `':${v}'`);
  const data = prepared ? `jsonb_build_object('score', :ns::int, 'previousScore', :p_score::int)` : `'{"score": :ns, "previousScore": :p_score}'::jsonb`;
  return [
    `\\set n 100000000000 + :client_id * ${perClient} + random(0, ${perClient - 1})`,
    oneLine(`${TENSION_SELECT} from tensions t ${TENSION_FROM} where t.id = ${ID}::uuid`) + ' \\gset p_',
    '\\set ns (:p_score % 10) + 1',
    '\\set nv :p_version + 1',
    // writeTensionCommand's shape: the projection row conditional on the version read, and the event only
    // if that row was written, in one autocommitted statement that answers the row in the read shape and
    // the stored event. Its guard against a stream ahead of its row (`on conflict`, the unique index's
    // check) stays out: belt and braces of this design. So does the feed lock (market_feed_lock(), which
    // the service takes first): pgbench connects with the schema's triggers off (see pgbench below).
    oneLine(`with t as (
       update tensions set name = ${text('p_name')}, current_context = null, potential_future = null, score = :ns, state = ${text('p_state')},
         actor_id = ${text('p_actor_id')}::uuid, lead_user_id = null, version = :nv, created_at = ${text('p_created_at')}::timestamptz, updated_at = now()
       where id = ${ID}::uuid and version = :p_version
       returning *),
     e as (
       insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
       select gen_random_uuid(), 'tension', ${ID}::uuid, :nv::int, 'TensionRescored', 1::int, ${data}, '${meta}'::jsonb, now()
       where exists (select 1 from t)
       returning *)
     ${TENSION_SELECT}, (select coalesce(json_agg(row_to_json(e)), '[]'::json) from e) as events from t ${TENSION_FROM};`),
    '',
  ].join('\n');
}

export interface PgbenchResult {
  clients: number;
  tps: number;
  latencyMs: number;
  transactions: number;
  failed: number;
}

export async function writeScript(db: BenchDatabase, dir: string, tensions: number, clients: number, mode: PgbenchMode): Promise<string> {
  const [row] = await db.query<{ metadata: Record<string, unknown> }>(
    `select metadata from domain_events where type = 'TensionRescored' and metadata->>'via' = 'rest' order by position limit 1`,
  );
  const file = join(dir, `rescore-${clients}-${mode}.pgbench.sql`);
  await writeFile(file, rescoreScript(row.metadata, Math.floor(tensions / clients), mode));
  return file;
}

export async function pgbench(url: string, script: string, clients: number, seconds: number, mode: PgbenchMode): Promise<PgbenchResult> {
  const { stdout } = await run(
    PGBENCH,
    ['-n', '-M', mode, '-f', script, '-c', String(clients), '-j', String(Math.min(clients, 2)), '-T', String(seconds), url],
    {
      timeout: (seconds + 60) * 1000,
      maxBuffer: 16 << 20,
      // Triggers off for the ceiling's connections, set at connect (no round trip): the feed lock's trigger
      // and the append-only guards are this design's costs, not the machine's (a superuser setting; the
      // bench runs as the database's owner on a server of its own).
      env: { ...process.env, PGOPTIONS: `${process.env.PGOPTIONS ?? ''} -c session_replication_role=replica`.trim() },
    },
  );
  const num = (re: RegExp) => Number(re.exec(stdout)?.[1] ?? NaN);
  return {
    clients,
    tps: num(/tps = ([\d.]+) \(without initial connection time\)/),
    latencyMs: num(/latency average = ([\d.]+) ms/),
    transactions: num(/number of transactions actually processed: (\d+)/),
    failed: num(/number of failed transactions: (\d+)/) || 0,
  };
}
