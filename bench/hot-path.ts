// The hot path's CPU per request: REST and GraphQL rescore on the built service and the same rescore on
// bench/servers/bare.mjs, each process's CPU time (/proc/<pid>/stat, user + system) over the requests it
// answered. A ratio of CPU times is steadier than one of req/s on a shared machine: scheduling delays
// lower throughput but spend no CPU of the measured process.
//   npx tsx bench/hot-path.ts [--rounds 3] [--seconds 5] [--connections 8] [--profile]
// (build first: npm run build:server). --profile writes the service's V8 CPU profile under bench/results/.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, type HttpResult, type Target } from './http-load.js';
import { createBenchDatabase } from './lib/pg.js';
import { ROOT, startService } from './lib/service.js';
import { provisionAgent, senseSample } from './setup.js';

const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('--rounds', 3);
const seconds = arg('--seconds', 5);
const connections = arg('--connections', 8);
const profile = process.argv.includes('--profile');
const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** CPU milliseconds (user + system) a process has spent so far. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function measure(pid: number, run: () => Promise<HttpResult>) {
  const before = cpuMs(pid);
  const result = await run();
  const spent = cpuMs(pid) - before;
  const answered = result.requests;
  return { rps: result.rps, msPerRequest: spent / Math.max(1, answered), non2xx: result.non2xx, errors: result.errors };
}

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const outDir = join(ROOT, 'bench/results', `hot-${stamp}`);
await mkdir(outDir, { recursive: true });
const db = await createBenchDatabase(SERVER_URL);
const env = {
  databaseUrl: db.url,
  dataDir: await mkdtemp(join(tmpdir(), 'bench-hot-')),
  logFile: join(outDir, 'service.log'),
  nodeArgs: profile ? ['--cpu-prof', `--cpu-prof-dir=${join(outDir, 'profiles')}`] : [],
};
const svc = await startService(env);
const bare = await startService({
  ...env,
  nodeArgs: profile ? ['--cpu-prof', `--cpu-prof-dir=${join(outDir, 'profiles-bare')}`] : [],
  entry: join(ROOT, 'bench/servers/bare.mjs'),
  logFile: join(outDir, 'bare.log'),
});
try {
  const agent = await provisionAgent(svc.url);
  const ids = await senseSample(svc.url, agent.key, agent.actorId, Math.max(64, connections * 8));
  const scores = new Map(ids.map((id) => [id, 6]));
  const target = (kind: 'rescore-rest' | 'rescore-graphql'): Target => ({ kind, ids, scores });
  // Warm both processes (JIT, prepared statements, caches) before any figure.
  await load(svc.url, agent.key, target('rescore-rest'), connections, 2);
  await load(svc.url, agent.key, target('rescore-graphql'), connections, 2);
  await load(bare.url, agent.key, target('rescore-rest'), connections, 2);
  const svcPid = svc.child.pid!;
  const barePid = bare.child.pid!;
  for (let r = 1; r <= rounds; r++) {
    const rest = await measure(svcPid, () => load(svc.url, agent.key, target('rescore-rest'), connections, seconds));
    const gql = await measure(svcPid, () => load(svc.url, agent.key, target('rescore-graphql'), connections, seconds));
    const b = await measure(barePid, () => load(bare.url, agent.key, target('rescore-rest'), connections, seconds));
    const loadavg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const f = (x: number) => x.toFixed(3);
    console.log(
      `round ${r} (${connections} conns, ${seconds} s, load ${loadavg}): CPU ms/request REST ${f(rest.msPerRequest)} GraphQL ${f(gql.msPerRequest)} ` +
        `bare ${f(b.msPerRequest)}; ratio REST ${f(b.msPerRequest / rest.msPerRequest)} GraphQL ${f(b.msPerRequest / gql.msPerRequest)}; ` +
        `req/s REST ${Math.round(rest.rps)} GraphQL ${Math.round(gql.rps)} bare ${Math.round(b.rps)}; ` +
        `non-2xx ${rest.non2xx}/${gql.non2xx}/${b.non2xx}, errors ${rest.errors}/${gql.errors}/${b.errors}`,
    );
  }
} finally {
  await svc.stop();
  await bare.stop();
  await db.drop();
}
console.log(`logs${profile ? ' and profile' : ''}: ${outDir}`);
