// The projection rebuild through the CLI (same `evolve` as the commands) against the pure-SQL ceiling:
// one INSERT … SELECT DISTINCT ON (stream_id) of the latest state data into a copy of the table.
import type { BenchDatabase } from './lib/pg.js';
import { runCli, type ServiceEnv } from './lib/service.js';

export interface RebuildResult {
  events: number;
  streams: number;
  ms: number;
  eventsPerSecond: number;
  inserted?: number;
  wallMs?: number;
}

/** Empties the projection (outside the timing), so the rebuild folds every stream and writes every row. */
export async function cliRebuild(db: BenchDatabase, env: ServiceEnv): Promise<RebuildResult> {
  // with the copy of its texts, which references it (migration 20261126120000); the dashboard's
  // tension_load is emptied by its truncate trigger
  await db.query('truncate tensions, tension_search');
  await db.query('vacuum analyze tensions, tension_search');
  const started = performance.now();
  const out = await runCli(env, ['projections', 'rebuild']);
  const wallMs = performance.now() - started;
  const report = JSON.parse(out.slice(out.indexOf('{')));
  return {
    events: report.events,
    streams: report.streams,
    ms: report.durationMs,
    eventsPerSecond: report.events / (report.durationMs / 1000),
    inserted: report.inserted,
    wallMs,
  };
}

/**
 * The rebuild while commands run: the rebuild set's rows are removed first (so it inserts 100,000 rows
 * and takes every batch's row locks, the pool's included), then `market-service projections rebuild`
 * starts and `during` runs beside it; answers both.
 */
export async function cliRebuildUnderLoad<T>(
  db: BenchDatabase,
  env: ServiceEnv,
  rebuildSet: [string, string],
  during: () => Promise<T>,
): Promise<{ rebuild: RebuildResult; load: T }> {
  await db.query('delete from tensions where id between $1::uuid and $2::uuid', rebuildSet);
  await db.query('vacuum analyze tensions, tension_search');
  const started = performance.now();
  const cli = runCli(env, ['projections', 'rebuild']);
  const [out, load] = await Promise.all([cli, during()]);
  const wallMs = performance.now() - started;
  const report = JSON.parse(out.slice(out.indexOf('{')));
  return {
    rebuild: {
      events: report.events,
      streams: report.streams,
      ms: report.durationMs,
      eventsPerSecond: report.events / (report.durationMs / 1000),
      inserted: report.inserted,
      wallMs,
    },
    load,
  };
}

/** The projection rebuilt from the events where it differs (a kept database whose rows a run's pgbench moved). */
export async function rebuildInPlace(env: ServiceEnv): Promise<Record<string, number>> {
  const out = await runCli(env, ['projections', 'rebuild']);
  return JSON.parse(out.slice(out.indexOf('{')));
}

/** Checks that the SQL-written bulk is what `evolve` folds: a dry run must find nothing to change. */
export async function dryRunCheck(env: ServiceEnv): Promise<Record<string, number>> {
  const out = await runCli(env, ['projections', 'rebuild', '--dry-run']);
  return JSON.parse(out.slice(out.indexOf('{')));
}

export async function sqlCeiling(db: BenchDatabase): Promise<RebuildResult> {
  await db.query('drop table if exists bench_tensions_ceiling');
  await db.query('create table bench_tensions_ceiling (like tensions including all)');
  const [{ events }] = await db.query<{ events: string }>(`select count(*)::text as events from domain_events where stream_type = 'tension'`);
  const started = performance.now();
  await db.query('begin');
  // The latest event of each stream gives version and updated_at; the TensionSensed data the rest.
  const res = await db.query<{ n: number }>(
    `with latest as (
       select distinct on (stream_id) stream_id, version, type, data, occurred_at
       from domain_events where stream_type = 'tension' order by stream_id, version desc),
     ins as (
       insert into bench_tensions_ceiling (id, name, current_context, potential_future, score, state, actor_id, lead_user_id, version, created_at, updated_at)
       select l.stream_id, s.data->>'name', s.data->>'currentContext', s.data->>'potentialFuture',
              coalesce((l.data->>'score')::smallint, (s.data->>'score')::smallint), 'alive', (s.data->>'actorId')::uuid,
              (s.data->>'leadUserId')::uuid, l.version, s.occurred_at, l.occurred_at
       from latest l join domain_events s on s.stream_type = 'tension' and s.stream_id = l.stream_id and s.version = 1
       where l.type <> 'TensionDiscarded'
       returning 1)
     select count(*)::int as n from ins`,
  );
  await db.query('commit');
  const ms = performance.now() - started;
  await db.query('drop table bench_tensions_ceiling');
  return { events: Number(events), streams: res[0].n, ms, eventsPerSecond: Number(events) / (ms / 1000) };
}
