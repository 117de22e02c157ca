// GraphQL `Tension.lead.status`: a deactivated lead is named as such in the list, the tension and a command's
// answer, read with them (one statement for every lead of a page, however many rows); null without users:read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTracing, sqlTracing } from '../../../server/tracing.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { insertUser, newActor, newTension } from '../../support/tensions.js';

const exporter = new InMemorySpanExporter();
let stopTracing: () => Promise<void>;
let app: TestApp;
let admin: ReturnType<typeof client>;
let actor: string;

beforeAll(async () => {
  stopTracing = await startTracing({ serviceVersion: 'test', processors: [new SimpleSpanProcessor(exporter)] });
  app = await startTestApp();
  sqlTracing(app.deps.orm);
  admin = client(app, (await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*', 'users:*'] })).key);
  actor = await newActor(admin, 'Org');
});
afterAll(async () => {
  await app?.close();
  await stopTracing?.();
});

const LIST = `query { tensions(sort: name, limit: 100) { data { name lead { id name type status } } } }`;

/** The SQL statements one GraphQL request ran (its trace, named by the `traceparent` it sends). */
async function statementsOf(key: string, query: string): Promise<{ body: any; sql: string[] }> {
  const traceId = crypto.randomUUID().replace(/-/g, '');
  exporter.reset();
  const res = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    body: JSON.stringify({ query }),
  });
  const body = await res.json();
  const sql = exporter
    .getFinishedSpans()
    .filter((s) => s.name.startsWith('sql ') && s.spanContext().traceId === traceId)
    .map((s) => s.name);
  return { body, sql };
}

describe('Tension.lead.status', () => {
  it('says which leads are deactivated in the list, the tension and a command answer, in one statement for all leads', async () => {
    const reader = await seedUserWithKey(app, { grants: ['tensions:read', 'users:read'] });
    const active = await insertUser(app, { name: 'Ada Active' });
    const gone = await insertUser(app, { name: 'Gus Gone' });
    await newTension(admin, { name: 'a led by Ada', actorId: actor, leadUserId: active });
    const led = await newTension(admin, { name: 'b led by Gus', actorId: actor, leadUserId: gone });
    await newTension(admin, { name: 'c led by nobody', actorId: actor });
    // deactivated through the app, after the tension was given to them
    expect((await admin.del(`/users/${gone}`)).status).toBe(204);

    await statementsOf(reader.key, LIST); // the key's first use also records lastUsedAt
    const small = await statementsOf(reader.key, LIST);
    expect(small.body.errors).toBeUndefined();
    expect(small.body.data.tensions.data).toEqual([
      { name: 'a led by Ada', lead: { id: active, name: 'Ada Active', type: 'human', status: 'active' } },
      { name: 'b led by Gus', lead: { id: gone, name: 'Gus Gone', type: 'human', status: 'deactivated' } },
      { name: 'c led by nobody', lead: null },
    ]);

    // five more rows, each with its own lead: not one statement more
    for (let i = 0; i < 5; i++) {
      const lead = await insertUser(app, { name: `Lead ${i}` });
      await newTension(admin, { name: `d${i}`, actorId: actor, leadUserId: lead });
      if (i % 2) expect((await admin.del(`/users/${lead}`)).status).toBe(204);
    }
    const large = await statementsOf(reader.key, LIST);
    expect(large.body.data.tensions.data).toHaveLength(8);
    expect(large.body.data.tensions.data.slice(3).map((t: any) => t.lead.status)).toEqual(['active', 'deactivated', 'active', 'deactivated', 'active']);
    expect(large.sql).toEqual(small.sql);
    expect(large.sql.filter((name) => name === 'sql select users')).toHaveLength(1);

    const one = await statementsOf(reader.key, `query { tension(id: "${led.id}") { lead { name status } } }`);
    expect(one.body.data.tension.lead).toEqual({ name: 'Gus Gone', status: 'deactivated' });

    const answer = await admin.gql(`mutation { renameTension(id: "${led.id}", input: { name: "b still led by Gus" }) { tension { lead { name status } } } }`);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.renameTension.tension.lead).toEqual({ name: 'Gus Gone', status: 'deactivated' });
  });

  it('is null, with no error, for a caller who may read tensions but not users; REST keeps the SPEC read shape', async () => {
    const gone = await insertUser(app, { name: 'Hidden Hal' });
    const t = await newTension(admin, { name: 'led by Hal', actorId: actor, leadUserId: gone });
    expect((await admin.del(`/users/${gone}`)).status).toBe(204);
    const tensionsOnly = await seedUserWithKey(app, { grants: ['tensions:read'] });
    const res = await client(app, tensionsOnly.key).gql(`query { tension(id: "${t.id}") { lead { name status } } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.tension.lead).toEqual({ name: 'Hidden Hal', status: null });
    expect((await admin.get(`/tensions/${t.id}`)).body.lead).toEqual({ id: gone, name: 'Hidden Hal', type: 'human' });
  });
});
