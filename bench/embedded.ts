// The embedded database (PGlite): time from `start` on an existing data folder to /readyz, and
// rescore throughput at 8 connections.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, type HttpResult } from './http-load.js';
import { startService, type ServiceEnv } from './lib/service.js';
import { provisionAgent, senseSample } from './setup.js';

export interface EmbeddedRound {
  readyMs: number;
  rescore8: HttpResult;
}

export async function embeddedBench(logFile: string, tensions: number, rounds: number, seconds: number, log: (s: string) => void): Promise<EmbeddedRound[]> {
  const env: ServiceEnv = { dataDir: await mkdtemp(join(tmpdir(), 'bench-embedded-')), logFile };
  // First start creates the data folder, migrates and creates the admin: not what is measured.
  const first = await startService(env);
  let key: string;
  let ids: string[];
  try {
    const agent = await provisionAgent(first.url);
    key = agent.key;
    ids = await senseSample(first.url, key, agent.actorId, tensions);
  } finally {
    await first.stop();
  }
  log(`embedded: first start ${Math.round(first.readyMs)} ms, ${ids.length} tensions sensed`);
  // senseSample rescored ids[0] to 6; everything else is at 5.
  const scores = new Map(ids.map((id, i) => [id, i === 0 ? 6 : 5]));
  const out: EmbeddedRound[] = [];
  for (let r = 0; r < rounds; r++) {
    const svc = await startService(env);
    try {
      const rescore8 = await load(svc.url, key, { kind: 'rescore-rest', ids, scores }, 8, seconds);
      out.push({ readyMs: svc.readyMs, rescore8 });
      log(`embedded round ${r + 1}: ready ${Math.round(svc.readyMs)} ms, rescore@8 ${Math.round(rescore8.rps)} req/s`);
    } finally {
      await svc.stop();
    }
  }
  return out;
}
