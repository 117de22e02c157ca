// The operator dashboard's figures (issue 36) equal what the rest of the API and the tables say for the same
// period: weeks and days cut at UTC midnight (Monday for weeks), the rollups kept through discards, revivals
// and a projection rebuild, and key requests counted where lastUsedAt is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';
import { expectRollupsMatchSources } from '../../support/rollups.js';

// Wednesday 2026-11-18, 23:59:30 UTC: the next week starts on Monday the 23rd.
let now = new Date('2026-11-18T23:59:30.000Z');
let app: TestApp;
let admin: ReturnType<typeof client>;
let adminKeyId: string;

beforeAll(async () => {
  app = await startTestApp({}, { clock: () => now, keyUses: new Map() });
  const seeded = await seedUserWithKey(app, { grants: ['*'] });
  admin = client(app, seeded.key);
  adminKeyId = seeded.keyId;
});
afterAll(async () => {
  await app?.close();
});

const STATS = `query($weeks: Int) { dashboardTensions(weeks: $weeks) {
  from to byState { state count } aliveByScore { score count }
  weeks { weekStart sensed resolved dropped reopened discarded revived averageSensedScore }
  oldestAlive { id name score actorName createdAt } actorLoad { actorId actorName alive total } } }`;

async function stats(weeks = 3) {
  const res = await admin.gql(STATS, { weeks });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.dashboardTensions;
}

/** The truth, counted over the whole tensions table (what the rollup must equal). */
async function counted() {
  const em = app.em();
  const byState = await em.execute<{ state: string; count: number }[]>('select state, count(*)::int as count from tensions group by state order by state');
  const byScore = await em.execute<{ score: number; count: number }[]>(
    "select score, count(*)::int as count from tensions where state = 'alive' group by score order by score",
  );
  return { byState, byScore };
}

async function command(id: string, verb: string) {
  const res = await admin.post(`/tensions/${id}/${verb}`, {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('dashboardTensions', () => {
  it('counts per UTC week and now by state and score, as the tensions table and the list say', async () => {
    const big = await newActor(admin, 'Big Org');
    const small = await newActor(admin, 'Small Org');
    // week of Monday 16th (the clock is Wednesday 18th, 23:59:30)
    const a = await newTension(admin, { name: 'oldest', actorId: big, score: 2 });
    now = new Date('2026-11-18T23:59:31.000Z');
    const b = await newTension(admin, { name: 'second', actorId: big, score: 4 });
    now = new Date('2026-11-18T23:59:32.000Z');
    const c = await newTension(admin, { name: 'third', actorId: small, score: 9 });
    now = new Date('2026-11-22T23:59:59.999Z'); // Sunday, still that week
    await command(c.id, 'resolve');
    now = new Date('2026-11-23T00:00:00.000Z'); // Monday: the next week
    const d = await newTension(admin, { name: 'fourth', actorId: big, score: 6 });
    await command(b.id, 'drop');
    await command(b.id, 'revive');
    const e = await newTension(admin, { name: 'fifth', actorId: small, score: 6 });
    expect((await admin.del(`/tensions/${e.id}`)).status).toBe(204);

    const s = await stats(3);
    expect(s.from).toBe('2026-11-09T00:00:00.000Z');
    expect(s.to).toBe('2026-11-24T00:00:00.000Z');
    expect(s.weeks.map((w: { weekStart: string }) => w.weekStart)).toEqual(['2026-11-09', '2026-11-16', '2026-11-23']);
    expect(s.weeks[0]).toMatchObject({ sensed: 0, resolved: 0, averageSensedScore: null });
    expect(s.weeks[1]).toMatchObject({ sensed: 3, resolved: 1, dropped: 0, discarded: 0, averageSensedScore: 5 });
    expect(s.weeks[2]).toMatchObject({ sensed: 2, resolved: 0, dropped: 1, revived: 1, discarded: 1, averageSensedScore: 6 });

    const truth = await counted();
    expect(s.byState).toEqual(truth.byState);
    expect(s.byState).toEqual([
      { state: 'alive', count: 3 },
      { state: 'resolved', count: 1 },
    ]);
    expect(s.aliveByScore).toEqual(truth.byScore);
    // what the tension list says for the same states
    const alive = await admin.gql('{ tensions(state: alive, limit: 100) { data { id } } }');
    expect(alive.body.data.tensions.data).toHaveLength(3);

    expect(s.oldestAlive.map((t: { name: string }) => t.name)).toEqual(['oldest', 'second', 'fourth']);
    expect(s.oldestAlive[0]).toMatchObject({ id: a.id, score: 2, actorName: 'Big Org' });
    expect(s.actorLoad).toEqual([{ actorId: big, actorName: 'Big Org', alive: 3, total: 3 }]);
    expect(d.id).toBeTruthy();
  });

  it('keeps its counts through a projection rebuild', async () => {
    const before = await stats(3);
    const res = await admin.gql('mutation { rebuildTensionProjection(dryRun: false) { streams } }');
    expect(res.body.errors).toBeUndefined();
    const after = await stats(3);
    expect(after).toEqual(before);
    expect(after.byState).toEqual((await counted()).byState);
  });

  it('counts rows written in bulk by one statement (an import, a bulk load) as the tables hold them', async () => {
    const actor = await newActor(admin, 'Bulk Org');
    const template = await newTension(admin, { name: 'bulk template', actorId: actor, score: 3 });
    const id = (g: string) => `('00000000-0000-4000-8000-' || (200000000000 + ${g}))::uuid`;
    // 60 events of three types and 60 rows over three scores and two states, each table in one statement
    await app.em().execute(
      `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
       select gen_random_uuid(), 'tension', ${id('g')}, 1, (array['TensionSensed', 'TensionResolved', 'TensionDropped'])[1 + g % 3], 1,
              e.data || jsonb_build_object('id', ${id('g')}, 'score', 1 + g % 4), e.metadata, e.occurred_at
       from generate_series(1, 60) g, domain_events e where e.stream_id = ? and e.version = 1`,
      [template.id],
    );
    await app.em().execute(
      `insert into tensions (id, name, current_context, potential_future, score, state, actor_id, lead_user_id, version, created_at, updated_at)
       select ${id('g')}, 'Bulk ' || g, t.current_context, t.potential_future, 1 + g % 3, case when g % 2 = 0 then 'alive' else 'resolved' end,
              t.actor_id, null, 1, t.created_at, t.updated_at
       from generate_series(1, 60) g, tensions t where t.id = ?`,
      [template.id],
    );
    await expectRollupsMatchSources(app);
    // and a bulk delete, as a rebuild's
    await app.em().execute(`delete from tensions where name like 'Bulk %'`);
    await expectRollupsMatchSources(app);
  });

  it('refuses a period outside 1–52 weeks', async () => {
    for (const weeks of [0, 53, -1]) {
      const res = await admin.gql(STATS, { weeks });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('dashboardKeyUsage', () => {
  const USAGE = `query($days: Int) { dashboardKeyUsage(days: $days) { from to days keys { keyId keyName total requests } } }`;

  it('counts every request of a key per UTC day, written with lastUsedAt at most once a minute', async () => {
    const agent = await seedUserWithKey(app, { grants: ['tensions:read'] });
    const caller = client(app, agent.key);
    now = new Date('2026-11-24T23:58:00.000Z');
    for (let i = 0; i < 5; i++) expect((await caller.get('/tensions')).status).toBe(200); // the first writes 1, four wait
    const keyOf = async (days = 2) => {
      const res = await admin.gql(USAGE, { days });
      expect(res.body.errors).toBeUndefined();
      return { usage: res.body.data.dashboardKeyUsage, mine: res.body.data.dashboardKeyUsage.keys.find((k: { keyId: string }) => k.keyId === agent.keyId) };
    };
    await expect.poll(async () => (await keyOf()).mine?.requests).toEqual([0, 1]);
    now = new Date('2026-11-24T23:59:01.000Z'); // a minute on: the sixth request writes the five waiting
    expect((await caller.get('/tensions')).status).toBe(200);
    await expect.poll(async () => (await keyOf()).mine?.requests).toEqual([0, 6]);
    now = new Date('2026-11-25T00:00:02.000Z'); // the next UTC day
    expect((await caller.get('/tensions')).status).toBe(200);
    const { usage, mine } = await keyOf();
    expect(usage.days).toEqual(['2026-11-24', '2026-11-25']);
    expect(usage.from).toBe('2026-11-24T00:00:00.000Z');
    expect(mine).toMatchObject({ total: 7, requests: [6, 1] });
    const lastUsed = await admin.get(`/users/${agent.userId}/api-keys`);
    expect(lastUsed.body.data[0].lastUsedAt).toBe('2026-11-25T00:00:02.000Z');
    // the admin's own key shows too, one request per write at least
    expect(usage.keys.some((k: { keyId: string }) => k.keyId === adminKeyId)).toBe(true);
  });

  it('refuses a period outside 1–90 days', async () => {
    for (const days of [0, 91]) expect((await admin.gql(USAGE, { days })).body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });
});

describe('dashboardSignInFailures', () => {
  it('counts the failed sign-ins the audit trail holds for each day', async () => {
    now = new Date('2026-11-26T10:00:00.000Z');
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@test.example', password: `wrong-${i}` }),
      });
      expect(res.status).toBe(401);
    }
    const res = await admin.gql('{ dashboardSignInFailures(days: 3) { days { day failed throttled } } }');
    const days = res.body.data.dashboardSignInFailures.days;
    expect(days.map((d: { day: string }) => d.day)).toEqual(['2026-11-24', '2026-11-25', '2026-11-26']);
    expect(days[2]).toEqual({ day: '2026-11-26', failed: 2, throttled: 0 });
    const audit = await admin.gql(
      '{ auditLog(action: "auth.login_failed", from: "2026-11-26T00:00:00Z", to: "2026-11-27T00:00:00Z", limit: 100) { data { id } } }',
    );
    expect(audit.body.data.auditLog.data).toHaveLength(days[2].failed);
  });
});

describe('feed and webhook health', () => {
  it('names the feed head and the webhook endpoints by health', async () => {
    const res = await admin.gql(
      '{ dashboardFeedHealth { headPosition relays { name behind } } dashboardWebhookHealth { endpoints enabled failing disabled retrying } }',
    );
    expect(res.body.errors).toBeUndefined();
    const [head] = await app.em().execute<{ p: string }[]>('select max(position)::text as p from domain_events');
    expect(res.body.data.dashboardFeedHealth.headPosition).toBe(Number(head.p));
    expect(res.body.data.dashboardWebhookHealth).toEqual({ endpoints: 0, enabled: 0, failing: 0, disabled: 0, retrying: 0 });
  });
});
