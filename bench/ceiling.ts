// The SQL ceiling: the essential transaction of one REST rescore (read the tension's row, update it
// conditionally, insert the event, commit) with no lock shared by all writers and none of this design's
// extra checks, replayed by pgbench, each client on its own slice so clients never conflict. With prepared
// statements (`-M prepared`: each statement planned once per connection), what the machine can do; with
// `-M simple` (planned at every execution, as the service's statements are), for comparison.
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
  const meta = JSON.stringify(metadata).replace(/'/g, "''").replace(/":(?=\w)/g, '": ');
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
  const ID = prepared ? `('00000000-0000-4000-8000-' || :n)` : `'00000000-0000-4000-8000-:n'`;
  const text = (v: string) => (prepared ? `:${v}` : `':${v}'`);
  const data = prepared ? `jsonb_build_object('score', :ns::int, 'previousScore', :p_score::int)` : `'{"score": :ns, "previousScore": :p_score}'::jsonb`;
  return [
    `\\set n 100000000000 + :client_id * ${perClient} + random(0, ${perClient - 1})`,
    'BEGIN;',
    oneLine(`${TENSION_SELECT} from tensions t ${TENSION_FROM} where t.id = ${ID}::uuid`) + ' \\gset p_',
    '\\set ns (:p_score % 10) + 1',
    '\\set nv :p_version + 1',
    // the projection first (conditional on the version read), then the append: the command path's order
    oneLine(`with t as (
       update tensions set name = ${text('p_name')}, current_context = null, potential_future = null, score = :ns, state = ${text('p_state')},
         actor_id = ${text('p_actor_id')}::uuid, lead_user_id = null, version = :nv, created_at = ${text('p_created_at')}::timestamptz, updated_at = now()
       where id = ${ID}::uuid and version = :p_version
       returning *)
     ${TENSION_SELECT} from t ${TENSION_FROM};`),
    // A plain insert: the service's guard (the stream's max(version) must still be the head) and its
    // `on conflict do nothing` are this design's belt and braces, so they stay out of the ceiling.
    oneLine(`insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
      values (gen_random_uuid(), 'tension', ${ID}::uuid, :nv::int, 'TensionRescored', 1::int,
        ${data}, '${meta}'::jsonb, now())
      returning *;`),
    'END;',
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
    { timeout: (seconds + 60) * 1000, maxBuffer: 16 << 20 },
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
