// The SQL ceiling: the exact transaction one REST rescore executes, replayed by pgbench -M simple,
// each client on its own slice of tensions so clients never conflict.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchDatabase } from './lib/pg.js';

const run = promisify(execFile);
const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';

// The statements below are those of server/persistence/tension-projection.ts and event-store.ts
// (loadTensionRow, appendToStream, saveTensionState) with the command's values substituted in.
const TENSION_SELECT = `select t.id, t.name, t.current_context, t.potential_future, t.score, t.state, t.actor_id,
    t.lead_user_id, t.version, t.created_at, t.updated_at,
    a.name as actor_name, a.type as actor_type, u.name as lead_name, u.type as lead_type`;
const TENSION_FROM = `join actors a on a.id = t.actor_id left join users u on u.id = t.lead_user_id`;
const COLUMNS = 'id, name, current_context, potential_future, score, state, actor_id, lead_user_id, version, created_at, updated_at';
const ID = `'00000000-0000-4000-8000-:n'`;

/** One line per SQL command (pgbench ends a command at `;` or `\gset`). */
export function rescoreScript(metadata: Record<string, unknown>, perClient: number): string {
  const meta = JSON.stringify(metadata).replace(/'/g, "''");
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
  return [
    `\\set n 100000000000 + :client_id * ${perClient} + random(0, ${perClient - 1})`,
    'BEGIN;',
    oneLine(`${TENSION_SELECT} from tensions t ${TENSION_FROM} where t.id = ${ID}::uuid`) + ' \\gset p_',
    '\\set ns (:p_score % 10) + 1',
    '\\set nv :p_version + 1',
    // the projection first (conditional on the version read), then the append: the command path's order
    oneLine(`with t as (
       insert into tensions (${COLUMNS}) values (${ID}::uuid, ':p_name', null, null, :ns, ':p_state', ':p_actor_id'::uuid, null, :nv,
         ':p_created_at'::timestamptz, now())
       on conflict (id) do update set name = excluded.name, current_context = excluded.current_context,
         potential_future = excluded.potential_future, score = excluded.score, state = excluded.state,
         actor_id = excluded.actor_id, lead_user_id = excluded.lead_user_id, version = excluded.version,
         created_at = excluded.created_at, updated_at = excluded.updated_at
       where tensions.version = :p_version
       returning *)
     ${TENSION_SELECT} from t ${TENSION_FROM};`),
    `update domain_event_head set position = position + 1 returning position::text as position \\gset p_`,
    oneLine(`insert into domain_events (position, id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
      select * from (values (:p_position::bigint, gen_random_uuid(), 'tension', ${ID}::uuid, :nv::int, 'TensionRescored', 1::int,
        '{"score": :ns, "previousScore": :p_score}'::jsonb, '${meta}'::jsonb, now())) v
      where (select coalesce(max(version), 0) from domain_events where stream_type = 'tension' and stream_id = ${ID}::uuid) = :p_version
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

export async function writeScript(db: BenchDatabase, dir: string, tensions: number, clients: number): Promise<string> {
  const [row] = await db.query<{ metadata: Record<string, unknown> }>(
    `select metadata from domain_events where type = 'TensionRescored' and metadata->>'via' = 'rest' order by position limit 1`,
  );
  const file = join(dir, `rescore-${clients}.pgbench.sql`);
  await writeFile(file, rescoreScript(row.metadata, Math.floor(tensions / clients)));
  return file;
}

export async function pgbench(url: string, script: string, clients: number, seconds: number): Promise<PgbenchResult> {
  const { stdout } = await run(
    PGBENCH,
    ['-n', '-M', 'simple', '-f', script, '-c', String(clients), '-j', String(Math.min(clients, 2)), '-T', String(seconds), url],
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
