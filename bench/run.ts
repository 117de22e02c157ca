// `npm run bench`: provisions a fresh database, alternates each pair of systems round by round, and
// reports medians with their same-run ratios and targets. `--quick` for a small smoke run.
import { createServer as createHttpServer } from 'node:http';
import { once } from 'node:events';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { pgbench, writeScript, type PgbenchResult } from './ceiling.js';
import { embeddedBench } from './embedded.js';
import { feedFigures, feedLoads, feedRound, SUBSCRIBERS, type FeedRound } from './feed.js';
import { load, type HttpResult } from './http-load.js';
import { createBenchDatabase } from './lib/pg.js';
import { ROOT, startService, type ServiceEnv } from './lib/service.js';
import { BACKLOG_BASE, REBUILD_BASE, sizesFor, tensionId } from './lib/sizes.js';
import { cliRebuild, cliRebuildUnderLoad, dryRunCheck, sqlCeiling, type RebuildResult } from './rebuild.js';
import { deleteStream, natsOrReason, relayFigures, relayLoads, relayRound, type RelayRound, type RelayTarget } from './relay.js';
import { fmt, median, ratioFigure, renderTable, type Figure } from './report.js';
import { scaleBench, scaleOptions } from './scale.js';
import { oauthBench } from './oauth.js';
import { adminBench, adminOptions } from './admin.js';
import { webhookFigures, webhookLoads, webhookRound, type WebhookRound } from './webhooks.js';
import { bulkLoad, freshIds, longIds, poolIds, poolScores, provisionAgent, provisionReaders, senseSample } from './setup.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const sizes = sizesFor(flag('--quick'), option('--rounds') ? Number(option('--rounds')) : undefined);
const only = option('--only')?.split(',');
const want = (part: string) => !only || only.includes(part);
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// The relay's NATS server, and a stream and subject prefix of the bench's own (deleted at the end).
const RELAY: RelayTarget = {
  natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  stream: process.env.BENCH_NATS_STREAM ?? 'BENCH_EVENTS',
  subjectPrefix: process.env.BENCH_NATS_SUBJECT_PREFIX ?? 'bench.events',
};
const log = (s: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${s}\n`);

interface Round {
  /** the SQL ceiling: pgbench -M prepared, what the machine can do */
  pg: Record<number, PgbenchResult>;
  /** the same statements with -M simple: each planned at every execution, as the service's are with DB_PREPARED_STATEMENTS=false */
  pgSimple: Record<number, PgbenchResult>;
  rest: Record<number, HttpResult>;
  gql: Record<number, HttpResult>;
  /** REST on two service instances of one database, half the connections each (summed) */
  rest2: Record<number, HttpResult>;
  /** the same rescore on bench/servers/bare.mjs: the service's SQL behind bare Express + pg (a reference, not a baseline) */
  bare: Record<number, HttpResult>;
  /** REST rescore at 8 connections right before, and during, a CLI rebuild */
  quiet8?: HttpResult;
  duringRebuild8?: HttpResult;
  rebuildUnderLoad?: RebuildResult;
  long8?: HttpResult;
  fresh8?: HttpResult;
  history?: HttpResult;
  /** as-of read of the long streams' last version (a fold of the whole stream) */
  asOf?: HttpResult;
  /** a long stream's page of the feed (`?streamId=`), from its start and from 150 events before its end */
  feedStreamStart?: HttpResult;
  feedStreamTail?: HttpResult;
  /** the first as-of read of each long stream (round 1: no snapshot yet, the whole stream folded), ms, slowest */
  asOfColdMs?: number;
  get?: HttpResult;
  keyed8?: HttpResult;
  unverified8?: HttpResult;
  /** REST rescore at 8 connections: metrics off, on (the default), and tracing exported over OTLP */
  metricsOff8?: HttpResult;
  metricsOn8?: HttpResult;
  traced8?: HttpResult;
  /** tracing on, spans dropped by a no-op exporter: the cost of making them */
  spans8?: HttpResult;
  rebuild?: RebuildResult;
  rebuildCeiling?: RebuildResult;
  /** REST rescore 8 with and without 100 SSE subscribers, and the lag to them */
  feed?: FeedRound;
  /** the relay to NATS JetStream under the rescore load, and draining a backlog */
  relay?: RelayRound;
  /** REST rescore 8 on a service sending webhooks: no endpoint, 10, and 9 beside a dead one */
  webhooks?: WebhookRound;
}

function machine() {
  const pgVersion = (() => {
    try {
      return execFileSync('psql', [SERVER_URL, '-tAc', 'show server_version'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    postgres: pgVersion,
    loadAverageAtStart: execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' '),
  };
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = join(ROOT, 'bench/results', stamp);
  await mkdir(outDir, { recursive: true });
  const logFile = join(outDir, 'service.log');
  const env0 = machine();
  log(`bench ${sizes.quick ? 'QUICK' : 'FULL'} → ${outDir}`);
  // The scale part has a database of its own (bench/scale.ts); alone, it skips the shared setup.
  const scale = want('scale') ? scaleOptions(option, sizes.quick, sizes.rounds) : undefined;
  if (only?.length === 1 && scale) {
    const { figures, raw } = await scaleBench(SERVER_URL, outDir, scale, log);
    const table = renderTable(figures);
    console.log(
      `\nscale: ${JSON.stringify(scale.sizes)}, ${scale.seconds} s per query, ${scale.rounds} rounds; ${env0.cpus} × ${env0.cpuModel}, PostgreSQL ${env0.postgres}\n`,
    );
    console.log(table);
    await writeFile(join(outDir, 'results.json'), JSON.stringify({ scale: raw, machine: env0, figures }, null, 2));
    await writeFile(join(outDir, 'table.md'), `${table}\n`);
    if (figures.some((f) => f.pass === false)) process.exitCode = 1;
    return;
  }
  // OAuth for /mcp (bench/oauth.ts) has a database of its own too; alone, it skips the shared setup.
  if (only?.length === 1 && only[0] === 'oauth') {
    const { figures, raw } = await oauthBench(SERVER_URL, outDir, sizes, log);
    const table = renderTable(figures);
    console.log(`\noauth: ${sizes.rounds} rounds of ${sizes.seconds} s; ${env0.cpus} × ${env0.cpuModel}, PostgreSQL ${env0.postgres}\n`);
    console.log(table);
    await writeFile(join(outDir, 'results.json'), JSON.stringify({ oauth: raw, machine: env0, figures }, null, 2));
    await writeFile(join(outDir, 'table.md'), `${table}\n`);
    if (figures.some((f) => f.pass === false)) process.exitCode = 1;
    return;
  }
  // The admin app's first row, cold, in Chromium (bench/admin.ts): databases of its own; alone, it skips the shared setup.
  if (only?.length === 1 && only[0] === 'admin') {
    const { figures, raw } = await adminBench(SERVER_URL, outDir, adminOptions(option, sizes.quick), log);
    const table = renderTable(figures);
    console.log(`\nadmin: ${env0.cpus} × ${env0.cpuModel}, load at start ${env0.loadAverageAtStart}, PostgreSQL ${env0.postgres}\n`);
    console.log(table);
    await writeFile(join(outDir, 'results.json'), JSON.stringify({ admin: raw, machine: env0, figures }, null, 2));
    await writeFile(join(outDir, 'table.md'), `${table}\n`);
    if (figures.some((f) => f.pass === false)) process.exitCode = 1;
    return;
  }
  const db = await createBenchDatabase(SERVER_URL, process.env.BENCH_DB_NAME);
  log(`database ${db.name}`);
  const env: ServiceEnv = {
    databaseUrl: db.url,
    dataDir: await mkdtemp(join(tmpdir(), 'bench-data-')),
    logFile,
    nodeArgs: flag('--profile') ? ['--cpu-prof', `--cpu-prof-dir=${join(outDir, 'profiles')}`] : [],
  };
  const stops: (() => Promise<void>)[] = [];
  const stopLater = <S extends { stop: () => Promise<void> }>(svc: S): S => {
    stops.push(() => svc.stop());
    return svc;
  };
  const rounds: Round[] = [];
  let dryRun: Record<string, number> | undefined;
  let embedded: Awaited<ReturnType<typeof embeddedBench>> = [];
  let relayUnavailable: string | undefined;
  try {
    const svc = await startService(env);
    stops.push(() => svc.stop());
    const agent = await provisionAgent(svc.url);
    const sample = await senseSample(svc.url, agent.key, agent.actorId, sizes.sensedViaApi);
    log(`provisioned an agent key and sensed ${sample.length} tensions through the API`);
    await bulkLoad(db, sizes, log);
    dryRun = await dryRunCheck(env);
    log(`dry-run rebuild of the bulk: ${JSON.stringify(dryRun)}`);
    if (dryRun.inserted || dryRun.updated || dryRun.deleted) throw new Error('the SQL-written bulk differs from what evolve folds');

    const [apiKey] = await db.query<{ id: string }>('select id from api_keys where user_id = $1', [agent.agentUserId]);
    const unverified = await startService({
      ...env,
      entry: join(ROOT, 'bench/servers/unverified.mjs'),
      extraEnv: {
        BENCH_CALLER: JSON.stringify({
          kind: 'agent',
          userId: agent.agentUserId,
          userName: 'Bench agent',
          userGrants: ['tensions:read', 'tensions:write', 'actors:read'],
          keyPermissions: null,
          authenticatedBy: 'api_key',
          apiKey: { id: apiKey.id, name: 'bench' },
          sessionId: null,
        }),
      },
    });
    stops.push(() => unverified.stop());
    const second = await startService({ ...env, logFile: join(outDir, 'service-2.log') });
    stops.push(() => second.stop());
    const bare = stopLater(await startService({ ...env, entry: join(ROOT, 'bench/servers/bare.mjs'), logFile: join(outDir, 'bare.log') }));
    // The price of observability: the same service with metrics off, and with traces exported over
    // OTLP/HTTP to a local sink that accepts every batch (the exporter's whole cost, no collector's).
    let noMetrics: Awaited<ReturnType<typeof startService>> | undefined;
    let traced: Awaited<ReturnType<typeof startService>> | undefined;
    let spansOnly: Awaited<ReturnType<typeof startService>> | undefined;
    if (want('observability')) {
      const sink = createHttpServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      });
      sink.listen(0, '127.0.0.1');
      await once(sink, 'listening');
      stops.push(() => new Promise<void>((r) => sink.close(() => r())));
      const sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
      noMetrics = stopLater(await startService({ ...env, logFile: join(outDir, 'service-no-metrics.log'), extraEnv: { METRICS: 'false' } }));
      traced = stopLater(await startService({ ...env, logFile: join(outDir, 'service-traced.log'), extraEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl } }));
      spansOnly = stopLater(
        await startService({
          ...env,
          logFile: join(outDir, 'service-spans.log'),
          extraEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_EXPORTER: 'none' },
        }),
      );
    }

    const scripts: Record<number, string> = {};
    const simpleScripts: Record<number, string> = {};
    for (const c of [1, 8, 32]) scripts[c] = await writeScript(db, outDir, sizes.tensions, c, 'prepared');
    for (const c of [8, 32]) simpleScripts[c] = await writeScript(db, outDir, sizes.tensions, c, 'simple');
    const pool = poolIds(sizes);
    const long = longIds(sizes);
    const T = sizes.seconds;
    /**
     * One pgbench run of the ceiling, checked: every transaction it counts must have appended its event
     * (the positions' sequence moves once per event row), or a script that silently matched no row would
     * pass for a faster machine.
     */
    const ceiling = async (c: number, mode: 'prepared' | 'simple'): Promise<PgbenchResult> => {
      const position = async () => Number((await db.query<{ v: string }>('select last_value::text as v from domain_events_position_seq'))[0].v);
      const before = await position();
      const result = await pgbench(db.url, (mode === 'prepared' ? scripts : simpleScripts)[c], c, T, mode);
      const appended = (await position()) - before;
      if (appended !== result.transactions) {
        throw new Error(`the SQL ceiling (${mode}, ${c} clients) appended ${appended} events in ${result.transactions} transactions`);
      }
      return result;
    };
    const rescore = async (url: string, kind: 'rescore-rest' | 'rescore-graphql', ids: string[], c: number, seconds = T) =>
      load(url, agent.key, { kind, ids, scores: await poolScores(db, ids) }, c, seconds);
    /** Two instances of the service on one database, each with half the connections and half the tensions. */
    const twoInstances = async (a: string, b: string, ids: string[], c: number): Promise<HttpResult> => {
      const half = Math.floor(ids.length / 2);
      const [x, y] = await Promise.all([rescore(a, 'rescore-rest', ids.slice(0, half), c / 2), rescore(b, 'rescore-rest', ids.slice(half), c / 2)]);
      return {
        connections: c,
        rps: x.rps + y.rps,
        p50: Math.max(x.p50, y.p50),
        p99: Math.max(x.p99, y.p99),
        requests: x.requests + y.requests,
        non2xx: x.non2xx + y.non2xx,
        errors: x.errors + y.errors,
      };
    };
    const rebuildSet: [string, string] = [tensionId(REBUILD_BASE), tensionId(REBUILD_BASE + sizes.rebuildStreams - 1)];
    /** REST rescore at 8 connections on the main service, reporting each appended event's 200 (feed and relay). */
    const recordedLoad = async (onAppended: (event: string, at: number) => void, seconds = T) =>
      load(svc.url, agent.key, { kind: 'rescore-rest', ids: pool, scores: await poolScores(db, pool) }, 8, seconds, onAppended);
    // The one instance that sends webhooks (the others run with WEBHOOKS=false, bench/lib/service.ts), to receivers on 127.0.0.1.
    const hooked = want('webhooks')
      ? stopLater(
          await startService({
            ...env,
            logFile: join(outDir, 'service-webhooks.log'),
            extraEnv: { WEBHOOKS: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' },
          }),
        )
      : undefined;
    const readerKeys = want('feed') ? await provisionReaders(svc.url, Math.ceil(SUBSCRIBERS / 20)) : [];
    const [feedKey] = want('streams') ? await provisionReaders(svc.url, 1) : [''];
    let nats: Awaited<ReturnType<typeof natsOrReason>> | undefined;
    if (want('relay')) {
      nats = await natsOrReason(RELAY.natsUrl);
      if (typeof nats === 'string') {
        relayUnavailable = nats;
        log(`relay not measured: ${nats}`);
      } else {
        const nc = nats;
        await deleteStream(nc, RELAY.stream);
        stops.push(async () => {
          await deleteStream(nc, RELAY.stream);
          await nc.close();
        });
      }
    }

    for (let r = 1; r <= sizes.rounds; r++) {
      const round: Round = { pg: {}, pgSimple: {}, rest: {}, gql: {}, rest2: {}, bare: {} };
      rounds.push(round);
      if (want('rescore')) {
        round.pg[1] = await ceiling(1, 'prepared');
        for (const c of [8, 32]) {
          round.pg[c] = await ceiling(c, 'prepared');
          round.pgSimple[c] = await ceiling(c, 'simple');
          round.rest[c] = await rescore(svc.url, 'rescore-rest', pool, c);
          round.gql[c] = await rescore(svc.url, 'rescore-graphql', pool, c);
          round.rest2[c] = await twoInstances(svc.url, second.url, pool, c);
          round.bare[c] = await rescore(bare.url, 'rescore-rest', pool, c);
        }
        log(
          `round ${r} rescore: pg ${[1, 8, 32].map((c) => `${c}:${Math.round(round.pg[c].tps)}`).join(' ')} tps ` +
            `(-M simple 8:${Math.round(round.pgSimple[8].tps)} 32:${Math.round(round.pgSimple[32].tps)}); ` +
            `rest 8:${Math.round(round.rest[8].rps)} 32:${Math.round(round.rest[32].rps)}; gql 8:${Math.round(round.gql[8].rps)} 32:${Math.round(round.gql[32].rps)}; ` +
            `2 instances 8:${Math.round(round.rest2[8].rps)} 32:${Math.round(round.rest2[32].rps)}; ` +
            `bare handler 8:${Math.round(round.bare[8].rps)} 32:${Math.round(round.bare[32].rps)} req/s`,
        );
      }
      if (want('streams')) {
        round.long8 = await rescore(svc.url, 'rescore-rest', long, sizes.longStreams);
        // Same shape on both sides (one tension per connection), so only the stream length differs.
        round.fresh8 = await rescore(svc.url, 'rescore-rest', freshIds(sizes, r), sizes.longStreams);
        round.history = await load(svc.url, agent.key, { kind: 'history', ids: long }, 8, T);
        round.get = await load(svc.url, agent.key, { kind: 'get', ids: long }, 8, T);
        // The first read of a stream's past folds it whole and leaves snapshots behind (issue 34): timed
        // apart, all streams at once, before the measured load reads from the snapshots.
        const coldStart = performance.now();
        const cold = await Promise.all(
          long.map(async (id) => {
            const t0 = performance.now();
            const res = await fetch(`${svc.url}/api/v1/tensions/${id}?asOfVersion=${sizes.longEvents}`, { headers: { authorization: `Bearer ${agent.key}` } });
            if (res.status !== 200) throw new Error(`as-of warm-up: ${res.status} ${await res.text()}`);
            return performance.now() - t0;
          }),
        );
        round.asOfColdMs = Math.round(Math.max(...cold));
        log(`round ${r} as-of first reads: slowest ${round.asOfColdMs} ms, all ${Math.round(performance.now() - coldStart)} ms`);
        round.asOf = await load(svc.url, agent.key, { kind: 'as-of', ids: long, version: sizes.longEvents }, 8, T);
        // The feed by stream reads the version key, its place found by a binary search (Migration20261129210000):
        // a page from the stream's start and one near its end, where a walk from the start would be longest.
        round.feedStreamStart = await load(svc.url, feedKey, { kind: 'feed-stream', ids: long }, 8, T);
        round.feedStreamTail = await load(svc.url, feedKey, { kind: 'feed-stream', ids: long, after: await tailCursors(svc.url, feedKey, long) }, 8, T);
        log(
          `round ${r} streams: long ${Math.round(round.long8.rps)} fresh ${Math.round(round.fresh8.rps)} req/s; ` +
            `history p99 ${round.history.p99} ms, get p99 ${round.get.p99} ms, as-of p99 ${round.asOf.p99} ms, ` +
            `feed by stream p99 ${round.feedStreamStart.p99} (start) / ${round.feedStreamTail.p99} (near the end) ms`,
        );
      }
      if (want('auth')) {
        round.keyed8 = await rescore(svc.url, 'rescore-rest', pool, 8);
        round.unverified8 = await rescore(unverified.url, 'rescore-rest', pool, 8);
        log(`round ${r} auth: key ${Math.round(round.keyed8.rps)} unverified ${Math.round(round.unverified8.rps)} req/s`);
      }
      if (want('observability') && noMetrics && traced && spansOnly) {
        // The paired services must be equally warm (JIT, pools): the main one has served every load
        // before this point, the others none. Each gets the same unmeasured load first, every round.
        for (const s of [noMetrics, svc, spansOnly, traced]) await rescore(s.url, 'rescore-rest', pool, 8, Math.max(2, Math.round(T / 2)));
        round.metricsOff8 = await rescore(noMetrics.url, 'rescore-rest', pool, 8);
        round.metricsOn8 = await rescore(svc.url, 'rescore-rest', pool, 8);
        round.spans8 = await rescore(spansOnly.url, 'rescore-rest', pool, 8);
        round.traced8 = await rescore(traced.url, 'rescore-rest', pool, 8);
        log(
          `round ${r} observability: metrics off ${Math.round(round.metricsOff8.rps)} on ${Math.round(round.metricsOn8.rps)}, ` +
            `spans dropped ${Math.round(round.spans8.rps)}, exported ${Math.round(round.traced8.rps)} req/s`,
        );
      }
      if (want('rebuild')) {
        round.rebuild = await cliRebuild(db, env);
        round.rebuildCeiling = await sqlCeiling(db);
        log(
          `round ${r} rebuild: cli ${Math.round(round.rebuild.eventsPerSecond)} ev/s (${round.rebuild.events} events, ${round.rebuild.ms} ms); ` +
            `sql ${Math.round(round.rebuildCeiling.eventsPerSecond)} ev/s (${Math.round(round.rebuildCeiling.ms)} ms)`,
        );
        // Rescore at 8 connections without, then during, a rebuild that inserts the rebuild set's rows.
        round.quiet8 = await rescore(svc.url, 'rescore-rest', pool, 8);
        const under = await cliRebuildUnderLoad(db, env, rebuildSet, () => rescore(svc.url, 'rescore-rest', pool, 8));
        round.duringRebuild8 = under.load;
        round.rebuildUnderLoad = under.rebuild;
        log(
          `round ${r} rescore during rebuild: p99 ${round.duringRebuild8.p99} ms (quiet ${round.quiet8.p99} ms), ` +
            `${Math.round(round.duringRebuild8.rps)} req/s (quiet ${Math.round(round.quiet8.rps)}); rebuild ${under.rebuild.ms} ms`,
        );
      }
      if (want('feed')) {
        round.feed = await feedRound(svc.url, readerKeys, recordedLoad, T);
        const { lag } = round.feed;
        log(
          `round ${r} feed: rescore ${Math.round(round.feed.alone.rps)} req/s alone, ${Math.round(round.feed.followed.rps)} with ${lag.subscribers} subscribers; ` +
            `lag p50 ${Math.round(lag.p50)} p99 ${Math.round(lag.p99)} max ${Math.round(lag.max)} ms over ${lag.deliveries} deliveries (${lag.missing} missing, ${lag.ended} ended)`,
        );
      }
      if (hooked) {
        const onHooked = async (onAppended: (event: string, at: number) => void, seconds = T) =>
          load(hooked.url, agent.key, { kind: 'rescore-rest', ids: pool, scores: await poolScores(db, pool) }, 8, seconds, onAppended);
        // the sending service and every PostgreSQL backend of the bench's database (the others' are idle meanwhile)
        const systemPids = async () => [
          hooked.child.pid!,
          ...(await db.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).map(
            (r) => r.pid,
          ),
        ];
        round.webhooks = await webhookRound(hooked.url, onHooked, T, log, systemPids);
        const x = round.webhooks;
        log(
          `round ${r} webhooks: rescore ${Math.round(x.alone.rps)} req/s alone, ${Math.round(x.hooked.rps)} with 10 endpoints, ${Math.round(x.withDead.rps)} with 9 + a dead one; ` +
            `lag p50 ${Math.round(x.lag.p50)} p99 ${Math.round(x.lag.p99)} ms (${x.lag.missing} missing, ${x.lag.duplicates} twice), beside the dead one p99 ${Math.round(x.deadLag.p99)} ms`,
        );
      }
      if (want('relay') && nats && typeof nats !== 'string') {
        const backlog = { base: BACKLOG_BASE + (r - 1) * sizes.relayBacklogStreams, streams: sizes.relayBacklogStreams, eventsPerStream: 10 };
        round.relay = await relayRound(db, { ...env, logFile: join(outDir, 'relay.log') }, nats, RELAY, recordedLoad, backlog, log);
        const x = round.relay;
        log(
          `round ${r} relay: rescore ${Math.round(x.alone.rps)} req/s alone, ${Math.round(x.relayed.rps)} relayed; lag p50 ${Math.round(x.lagP50)} p99 ${Math.round(x.lagP99)} ms, ` +
            `drained ${Math.round(x.drainMs)} ms after (${x.missing} missing, ${x.duplicates} twice); backlog ${Math.round(x.backlogRate)} ev/s`,
        );
      }
    }
    for (const stop of stops.splice(0).reverse()) await stop();
    if (want('embedded')) embedded = await embeddedBench(join(outDir, 'embedded.log'), sizes.embeddedTensions, sizes.rounds, T, log);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    if (flag('--keep-db')) await db.close();
    else await db.drop();
  }

  const figures = buildFigures(rounds, embedded, relayUnavailable);
  let scaleRaw: unknown;
  if (scale) {
    const result = await scaleBench(SERVER_URL, outDir, scale, log);
    figures.push(...result.figures);
    scaleRaw = result.raw;
  }
  let oauthRaw: unknown;
  if (want('oauth')) {
    const result = await oauthBench(SERVER_URL, outDir, sizes, log);
    figures.push(...result.figures);
    oauthRaw = result.raw;
  }
  const table = `${renderTable(figures)}\n\n${sideBySide(rounds)}`;
  const conditions = `${sizes.quick ? 'QUICK' : 'FULL'} run: ${sizes.tensions} tensions, ${sizes.seconds} s per measurement, ${sizes.rounds} rounds`;
  console.log(`\n${conditions}; ${env0.cpus} × ${env0.cpuModel}, ${env0.memoryGiB} GiB, Node ${env0.node}, PostgreSQL ${env0.postgres}\n`);
  console.log(table);
  await writeFile(
    join(outDir, 'results.json'),
    JSON.stringify({ sizes, machine: env0, dryRun, figures, rounds, embedded, scale: scaleRaw, oauth: oauthRaw }, null, 2),
  );
  await writeFile(join(outDir, 'table.md'), `${conditions}\n\n${table}\n`);
  log(`results in ${outDir}`);
  if (figures.some((f) => f.pass === false)) process.exitCode = 1;
}

/** For each stream, the feed cursor 150 of its events before its end (read through the filtered feed itself). */
async function tailCursors(url: string, key: string, ids: string[]): Promise<Map<string, string>> {
  const page = async (id: string, limit: number, after?: string) => {
    const res = await fetch(`${url}/api/v1/events?streamId=${id}&limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (res.status !== 200) throw new Error(`feed by stream: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: unknown[]; nextCursor: string };
  };
  const cursors = new Map<string, string>();
  for (const id of ids) {
    let total = 0;
    for (let after: string | undefined, p; (p = await page(id, 1000, after)).data.length > 0; after = p.nextCursor) total += p.data.length;
    let after: string | undefined;
    for (let left = Math.max(0, total - 150); left > 0;) {
      const p = await page(id, Math.min(1000, left), after);
      left -= p.data.length;
      after = p.nextCursor;
    }
    if (after) cursors.set(id, after);
  }
  return cursors;
}

function buildFigures(rounds: Round[], embedded: Awaited<ReturnType<typeof embeddedBench>>, relayUnavailable?: string): Figure[] {
  const f: Figure[] = [];
  const pick = <T>(get: (r: Round) => T | undefined) => rounds.map(get).filter((x): x is T => x !== undefined);
  const http: HttpResult[] = [];
  if (rounds[0]?.pg[1]) {
    const pg = (c: number) => pick((r) => r.pg[c]?.tps);
    for (const c of [1, 8, 32]) f.push({ name: `SQL ceiling, pgbench ${c} client${c > 1 ? 's' : ''} (prepared)`, value: fmt(median(pg(c)), ' tps') });
    for (const c of [8, 32]) {
      // The price of planning every statement (the simple protocol, as the service speaks it with DB_PREPARED_STATEMENTS=false or on
      // the embedded database): reported beside the ceiling, never in it.
      const simple = pick((r) => r.pgSimple[c]?.tps);
      f.push({
        ...ratioFigure(`  the same, -M simple (planned every time), ${c} clients vs prepared`, simple, pg(c), ' tps', '>=', 0),
        target: undefined,
        pass: undefined,
      });
    }
    for (const c of [8, 32]) {
      const rest = pick((r) => r.rest[c]);
      const gql = pick((r) => r.gql[c]);
      http.push(...rest, ...gql);
      f.push(
        ratioFigure(
          `REST rescore ${c} conns vs ceiling ${c}`,
          rest.map((x) => x.rps),
          pg(c),
          ' req/s',
          '>=',
          c === 32 ? 0.35 : 0.3,
        ),
      );
      f.push({ name: `  REST ${c} conns p50 / p99`, value: `${median(rest.map((x) => x.p50))} / ${median(rest.map((x) => x.p99))} ms` });
      f.push(
        c === 32
          ? ratioFigure(
              `GraphQL rescore ${c} conns vs ceiling ${c}`,
              gql.map((x) => x.rps),
              pg(c),
              ' req/s',
              '>=',
              0.3,
            )
          : {
              ...ratioFigure(
                `GraphQL rescore ${c} conns vs ceiling ${c}`,
                gql.map((x) => x.rps),
                pg(c),
                ' req/s',
                '>=',
                0,
              ),
              target: undefined,
              pass: undefined,
            },
      );
      f.push({ name: `  GraphQL ${c} conns p50 / p99`, value: `${median(gql.map((x) => x.p50))} / ${median(gql.map((x) => x.p99))} ms` });
    }
  }
  if (rounds[0]?.rest2[8]) {
    for (const c of [8, 32]) {
      const two = pick((r) => r.rest2[c]);
      http.push(...two);
      f.push({
        ...ratioFigure(
          `REST rescore, 2 instances, ${c} conns vs 1 instance`,
          two.map((x) => x.rps),
          pick((r) => r.rest[c]?.rps),
          ' req/s',
          '>=',
          0,
        ),
        target: undefined,
        pass: undefined,
      });
      f.push({ name: `  2 instances ${c} conns p50 / p99`, value: `${median(two.map((x) => x.p50))} / ${median(two.map((x) => x.p99))} ms` });
    }
  }
  if (rounds[0]?.bare[8]) {
    // How far the service is from the thinnest Node around its own SQL on this machine: a reference for
    // what the targets leave to everything else (auth, validation, MikroORM, logging, metrics, idempotency).
    for (const c of [8, 32]) {
      const bare = pick((r) => r.bare[c]);
      http.push(...bare);
      f.push({
        ...ratioFigure(
          `bare handler (same SQL, bare Express + pg) ${c} conns vs ceiling ${c}`,
          bare.map((x) => x.rps),
          pick((r) => r.pg[c]?.tps),
          ' req/s',
          '>=',
          0,
        ),
        target: undefined,
        pass: undefined,
      });
      f.push({
        ...ratioFigure(
          `REST rescore ${c} conns vs bare handler ${c}`,
          pick((r) => r.rest[c]?.rps),
          bare.map((x) => x.rps),
          ' req/s',
          '>=',
          0,
        ),
        target: undefined,
        pass: undefined,
      });
    }
  }
  if (rounds[0]?.pg[8]) {
    // No collapse under concurrency: 32 connections carry at least what 8 do.
    const scaling = (name: string, at: (r: Round, c: number) => number | undefined) =>
      ratioFigure(
        `${name}: 32 conns vs 8`,
        pick((r) => at(r, 32)),
        pick((r) => at(r, 8)),
        '/s',
        '>=',
        1,
      );
    f.push(scaling('SQL ceiling', (r, c) => r.pg[c]?.tps));
    f.push(scaling('REST rescore', (r, c) => r.rest[c]?.rps));
    f.push(scaling('GraphQL rescore', (r, c) => r.gql[c]?.rps));
    if (rounds[0]?.rest2[8]) f.push({ ...scaling('REST rescore, 2 instances', (r, c) => r.rest2[c]?.rps), target: undefined, pass: undefined });
  }
  if (rounds[0]?.long8) {
    const long = pick((r) => r.long8);
    const fresh = pick((r) => r.fresh8);
    http.push(...long, ...fresh);
    f.push(
      ratioFigure(
        'rescore on long stream vs fresh (8 conns)',
        long.map((x) => x.rps),
        fresh.map((x) => x.rps),
        ' req/s',
        '>=',
        0.9,
      ),
    );
    const hist = pick((r) => r.history);
    const get = pick((r) => r.get);
    http.push(...hist, ...get);
    f.push(
      ratioFigure(
        'history page p99 vs GET /tensions/:id p99',
        hist.map((x) => x.p99),
        get.map((x) => x.p99),
        ' ms',
        '<=',
        2,
      ),
    );
    f.push({ name: '  history / GET req/s', value: `${fmt(median(hist.map((x) => x.rps)))} / ${fmt(median(get.map((x) => x.rps)))}` });
    const asOf = pick((r) => r.asOf);
    http.push(...asOf);
    f.push(
      ratioFigure(
        `as-of read of version ${sizes.longEvents} p99 vs history page p99`,
        asOf.map((x) => x.p99),
        hist.map((x) => x.p99),
        ' ms',
        '<=',
        3,
      ),
    );
    const feedStart = pick((r) => r.feedStreamStart);
    const feedTail = pick((r) => r.feedStreamTail);
    http.push(...feedStart, ...feedTail);
    for (const [where, runs] of [
      ['from its start', feedStart],
      ['150 events before its end', feedTail],
    ] as const) {
      f.push(
        ratioFigure(
          `feed ?streamId= of a ${sizes.longEvents}-event stream, ${where}, p99 vs GET /tensions/:id p99`,
          runs.map((x) => x.p99),
          get.map((x) => x.p99),
          ' ms',
          '<=',
          5,
        ),
      );
    }
    f.push({
      name: `  first as-of read of each long stream (folds it whole), slowest, ms`,
      value: rounds.map((r) => fmt(r.asOfColdMs ?? 0)).join(' / '),
    });
  }
  if (rounds[0]?.rebuild) {
    const cli = pick((r) => r.rebuild);
    const sql = pick((r) => r.rebuildCeiling);
    f.push(
      ratioFigure(
        `rebuild (CLI, ${cli[0].events} events / ${cli[0].streams} streams) vs SQL`,
        cli.map((x) => x.eventsPerSecond),
        sql.map((x) => x.eventsPerSecond),
        ' ev/s',
        '>=',
        0.25,
      ),
    );
    const during = pick((r) => r.duringRebuild8);
    const quiet = pick((r) => r.quiet8);
    http.push(...during, ...quiet);
    f.push(
      ratioFigure(
        'rescore p99 during a rebuild vs without (8 conns)',
        during.map((x) => x.p99),
        quiet.map((x) => x.p99),
        ' ms',
        '<=',
        3,
      ),
    );
    f.push({ name: '  during / without req/s', value: `${fmt(median(during.map((x) => x.rps)))} / ${fmt(median(quiet.map((x) => x.rps)))}` });
    f.push({ name: '  rebuild under load (CLI durationMs)', value: fmt(median(pick((r) => r.rebuildUnderLoad?.ms)), ' ms') });
    const failed = during.reduce((n, h) => n + h.non2xx + h.errors, 0);
    f.push({ name: '  failed rescores during the rebuild', value: String(failed), target: '= 0', pass: failed === 0 });
  }
  if (rounds[0]?.keyed8) {
    const keyed = pick((r) => r.keyed8);
    const unverified = pick((r) => r.unverified8);
    http.push(...keyed, ...unverified);
    f.push(
      ratioFigure(
        'bearer key vs verification short-circuited (rescore 8)',
        keyed.map((x) => x.rps),
        unverified.map((x) => x.rps),
        ' req/s',
        '>=',
        0.9,
      ),
    );
  }
  if (rounds[0]?.metricsOff8) {
    const off = pick((r) => r.metricsOff8);
    const on = pick((r) => r.metricsOn8);
    const spans = pick((r) => r.spans8);
    const traced = pick((r) => r.traced8);
    http.push(...off, ...on, ...spans, ...traced);
    // Costs as targets: metrics ≤ 5 % (ratio ≥ 0.95); tracing with a no-op exporter ≤ 15 % (≥ 0.85).
    f.push(
      ratioFigure(
        'metrics on vs off (REST rescore 8)',
        on.map((x) => x.rps),
        off.map((x) => x.rps),
        ' req/s',
        '>=',
        0.95,
      ),
    );
    f.push(
      ratioFigure(
        'tracing, no-op exporter vs off (REST rescore 8)',
        spans.map((x) => x.rps),
        on.map((x) => x.rps),
        ' req/s',
        '>=',
        0.85,
      ),
    );
    f.push({
      ...ratioFigure(
        '  tracing exported over OTLP/HTTP vs off',
        traced.map((x) => x.rps),
        on.map((x) => x.rps),
        ' req/s',
        '>=',
        0,
      ),
      target: undefined,
      pass: undefined,
    });
  }
  const feed = pick((r) => r.feed);
  http.push(...feedLoads(feed));
  f.push(...feedFigures(feed));
  const relay = pick((r) => r.relay);
  http.push(...relayLoads(relay));
  if (want('relay')) f.push(...relayFigures(relay, relayUnavailable));
  const webhooks = pick((r) => r.webhooks);
  http.push(...webhookLoads(webhooks));
  f.push(...webhookFigures(webhooks));
  if (embedded.length) {
    const ready = median(embedded.map((e) => e.readyMs));
    f.push({ name: 'embedded: start (existing data) to /readyz', value: fmt(ready, ' ms'), target: '<= 2000 ms', pass: ready <= 2000 });
    http.push(...embedded.map((e) => e.rescore8));
    f.push({ name: 'embedded: REST rescore 8 conns', value: fmt(median(embedded.map((e) => e.rescore8.rps)), ' req/s') });
  }
  const bad = http.reduce((n, h) => n + h.non2xx + h.errors, 0);
  f.push({ name: 'non-2xx responses and errors, all HTTP loads', value: String(bad), target: '= 0', pass: bad === 0 });
  return f;
}

/** Throughput at 8 and 32 connections side by side (medians over the rounds). */
function sideBySide(rounds: Round[]): string {
  if (!rounds[0]?.pg[8]) return '';
  const med = (get: (r: Round) => number | undefined) => median(rounds.map(get).filter((x): x is number => x !== undefined));
  const rows: [string, (r: Round, c: number) => number | undefined][] = [
    ['SQL ceiling (pgbench -M prepared, tx/s)', (r, c) => r.pg[c]?.tps],
    ['the same, -M simple (tx/s)', (r, c) => r.pgSimple[c]?.tps],
    ['REST rescore, 1 instance (req/s)', (r, c) => r.rest[c]?.rps],
    ['REST rescore, 2 instances (req/s)', (r, c) => r.rest2[c]?.rps],
    ['GraphQL rescore (req/s)', (r, c) => r.gql[c]?.rps],
    ['bare handler, same SQL (req/s, reference)', (r, c) => r.bare[c]?.rps],
  ];
  const lines = rows.map(([name, at]) => {
    const [a, b] = [med((r) => at(r, 8)), med((r) => at(r, 32))];
    return `| ${name} | ${fmt(a)} | ${fmt(b)} | ${fmt(b / a, '', 2)} |`;
  });
  return ['| throughput | 8 conns | 32 conns | 32 / 8 |', '|---|---|---|---|', ...lines].join('\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
