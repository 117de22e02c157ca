// The two lanes a request can take (server/http/command-lane.ts): a side is an app with the lane on or off
// (`commandLane: false`), on its own database, with a writer, a reader, an actor and its access lines; the
// lane tests play the same requests on both and compare the answers but for the ids and times each made.
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { startTestApp, type TestApp } from './app.js';
import { client, seedUserWithKey, type SeededUser } from './clients.js';
import { newActor } from './tensions.js';
import { createLogger } from '../../server/logger.js';
import type { Config } from '../../server/config.js';

export interface Side {
  app: TestApp;
  /** bearer key lookups the app has made so far */
  lookups: () => number;
  lines: Record<string, unknown>[];
  writer: SeededUser;
  reader: SeededUser;
  actorId: string;
}

export async function side(commandLane: boolean, config: Partial<Config> = {}): Promise<Side> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = await startTestApp({ logLevel: 'info', ...config }, { logger: createLogger('info', sink) }, undefined, { commandLane });
  const writer = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*'], name: 'Lane writer' });
  const reader = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'], name: 'Lane reader' });
  const actorId = await newActor(client(app, writer.key), 'Lane Co');
  let lookups = 0;
  app.deps.orm.em
    .getConnection()
    .getKnex()
    .on('query', (q: { sql: string }) => {
      if (q.sql.includes('from api_keys k join users u')) lookups++;
    });
  return { app, lines, writer, reader, actorId, lookups: () => lookups };
}

/** A side for the enclosing `describe`: started before its tests, closed after them (the object is filled in then). */
export function suiteSide(commandLane: boolean, config: Partial<Config> = {}): Side {
  const held = {} as Side;
  beforeAll(async () => {
    Object.assign(held, await side(commandLane, config));
  });
  afterAll(async () => {
    await held.app?.close();
  });
  return held;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

/** One request as a client sends it: `path` from the root (`/api/v1/...`, `/graphql`). */
export async function send(app: TestApp, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> {
  const res = await fetch(`${app.url}${path}`, { method, headers, body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body) });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), body: parsed, text };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;

/** An answer without what differs between two runs of the same request: ids, times, the date and the ETag of such a body. */
export function comparable(a: Answer, generatedRequestId: boolean) {
  const { date: _date, etag, 'x-request-id': requestId, ...headers } = a.headers;
  if (headers.ratelimit) headers.ratelimit = headers.ratelimit.replace(/;t=\d+/, ';t=<s>');
  return {
    status: a.status,
    headers,
    etag: etag ? /^W\/"[0-9a-f]+-[\w+/=-]+"$/.test(etag) : false,
    requestId: generatedRequestId ? UUID.test(requestId ?? '') && (UUID.lastIndex = 0) === 0 : requestId,
    body: a.text.replace(UUID, '<id>').replace(TIME, '<time>'),
  };
}

export const laneCount = async (app: TestApp) => {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  return Number(/^market_http_command_lane_total (\d+)/m.exec(text)?.[1] ?? 'NaN');
};

const FAIL_TRIGGER = `create or replace function lane_test_fail() returns trigger language plpgsql as $$
    begin
      if new.name = 'Lane busy' then raise exception 'lock timeout' using errcode = '55P03'; end if;
      if new.name = 'Lane bug' then raise exception 'a bug' using errcode = 'XX000'; end if;
      return new;
    end $$;
  create trigger lane_test_fail before update on tensions for each row execute function lane_test_fail()`;

/**
 * Runs `fn` while a trigger makes the command's one write fail after its key was found, for a tension named
 * 'Lane busy' with 55P03 (lock_timeout, a database that cannot serve for now) and for one named 'Lane bug'
 * with an error that is a bug.
 */
export async function withFailingWrites<T>(s: Side, fn: (names: readonly ['Lane busy', 'Lane bug']) => Promise<T>): Promise<T> {
  await s.app.em().execute(FAIL_TRIGGER);
  try {
    return await fn(['Lane busy', 'Lane bug']);
  } finally {
    await s.app.em().execute('drop trigger lane_test_fail on tensions; drop function lane_test_fail()');
  }
}
