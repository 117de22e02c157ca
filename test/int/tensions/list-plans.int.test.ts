// Plan shape at scale (issue 37): with tens of thousands of tensions and their events written as the command
// path writes them, no list query the service builds (every filter, alone and with `q`, under every sort, first
// and later pages) and no filtered feed read plans a sequential scan over `tensions` or `domain_events`.
// Shapes, never timings; timings are `npm run bench -- --only scale`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';
import { NO_MATCH_WORD, RARE_WORD, scaleActorId, scaleTensionId, scaleUserId, word, writeScaleData } from '../../../bench/lib/scale-data.js';
import {
  countTensionRows,
  queryTensionRows,
  tensionListSql,
  tensionWalkSql,
  SEARCH_MEMORY_ENTRIES,
  SEARCH_MEMORY_MS,
  WALK,
  type SearchMemory,
  type TensionQuery,
  type TensionSortKey,
  type WalkTuning,
} from '../../../server/persistence/tension-projection.js';
import { feedPageSql, FEED_START, type FeedFilter } from '../../../server/persistence/event-store.js';
import { likePattern } from '../../../server/persistence/transaction.js';

/** Big enough that a scan of either table costs far more than any index path (the planner then avoids it). */
const TENSIONS = 20_000;
const WATCHED = new Set(['tensions', 'tension_search', 'domain_events']);

let db: TestDatabase;
let em: EntityManager;

beforeAll(async () => {
  db = await createTestDatabase({ poolMax: 2 });
  em = db.orm.em.fork();
  // One connection for the bulk, so its begin/commit pairs enclose their statements.
  const knex = em.getConnection().getKnex();
  const conn = (await knex.client.acquireConnection()) as { query(sql: string, params?: unknown[]): Promise<unknown> };
  try {
    await writeScaleData((sql, params) => conn.query(sql, params), { tensions: TENSIONS, actors: TENSIONS / 500, users: TENSIONS / 1000, audit: 0 });
  } finally {
    await knex.client.releaseConnection(conn);
  }
}, 300_000);
afterAll(async () => {
  await db?.close();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

function nodesOn(table: string, node: PlanNode, found: PlanNode[] = []): PlanNode[] {
  if (node['Relation Name'] === table) found.push(node);
  for (const child of node.Plans ?? []) nodesOn(table, child, found);
  return found;
}

/** `Seq Scan on <table>` for every watched table the plan scans sequentially. */
function seqScans(node: PlanNode, found: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] && WATCHED.has(node['Relation Name'])) found.push(`Seq Scan on ${node['Relation Name']}`);
  for (const child of node.Plans ?? []) seqScans(child, found);
  return found;
}

async function plan(sql: string, params: unknown[]): Promise<PlanNode> {
  const [row] = await em.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`explain (format json) ${sql}`, params);
  const json = row['QUERY PLAN'];
  return (typeof json === 'string' ? JSON.parse(json) : json)[0].Plan;
}

/**
 * The plan PostgreSQL keeps for a prepared statement once it stops planning each execution (the feed's
 * statements are prepared on PostgreSQL): the generic plan, which cannot see the values.
 */
async function genericPlan(sql: string, params: unknown[]): Promise<PlanNode> {
  const knex = em.getConnection().getKnex();
  const conn = (await knex.client.acquireConnection()) as { query(sql: string): Promise<{ rows: { 'QUERY PLAN': [{ Plan: PlanNode }] }[] }> };
  try {
    let n = 0;
    await conn.query(`prepare scale_plan_probe as ${sql.replace(/\?/g, () => `$${++n}`)}`);
    await conn.query('set plan_cache_mode = force_generic_plan');
    const literal = (v: unknown) => `'${String(v).replace(/'/g, "''")}'`;
    const { rows } = await conn.query(`explain (format json) execute scale_plan_probe(${params.map(literal).join(', ')})`);
    return rows[0]['QUERY PLAN'][0].Plan;
  } finally {
    await conn.query('reset plan_cache_mode; deallocate scale_plan_probe');
    await knex.client.releaseConnection(conn);
  }
}

const SORTS: [TensionSortKey, boolean][] = [
  ['score', true],
  ['score', false],
  ['updatedAt', true],
  ['updatedAt', false],
  ['createdAt', true],
  ['createdAt', false],
  ['name', false],
  ['name', true],
  ['state', false],
  ['state', true],
  ['actor', false],
  ['actor', true],
  ['lead', false],
  ['lead', true],
];
const common = word(123);
const FILTERS: [string, Partial<TensionQuery>][] = [
  ['no filter', {}],
  ['state=alive', { state: 'alive' }],
  ['state=resolved', { state: 'resolved' }],
  ['state=stale', { state: 'stale' }],
  ['actorId', { actorId: scaleActorId(7) }],
  ['leadUserId', { leadUserId: scaleUserId(3) }],
  ['minScore=9', { minScore: 9 }],
  ['minScore=10', { minScore: 10 }],
  [`q=${common} (common)`, { q: common }],
  [`q=${RARE_WORD} (rare)`, { q: RARE_WORD }],
  [`q=${NO_MATCH_WORD} (no match)`, { q: NO_MATCH_WORD }],
  ['q=common&state=alive', { q: common, state: 'alive' }],
  ['q=common&state=resolved', { q: common, state: 'resolved' }],
  ['q=common&actorId', { q: common, actorId: scaleActorId(7) }],
  ['q=common&leadUserId', { q: common, leadUserId: scaleUserId(3) }],
  ['q=common&minScore=9', { q: common, minScore: 9 }],
];

describe(`list plans at ${TENSIONS} tensions (${onPostgres ? 'PostgreSQL' : 'embedded'})`, () => {
  it('the bulk is what the command path writes: about three events per tension, every state present', async () => {
    const [counts] = await em.execute<{ tensions: string; events: string; states: string }[]>(
      `select (select count(*) from tensions) as tensions, (select count(*) from domain_events) as events,
              (select count(distinct state) from tensions) as states`,
    );
    expect(Number(counts.tensions)).toBe(TENSIONS);
    expect(Number(counts.events)).toBeGreaterThan(3 * TENSIONS);
    expect(Number(counts.states)).toBe(3);
  });

  // 16 filters × 14 sorts × 2 pages explained: over 30 s on the embedded database of a loaded machine
  it('no list query, first page or second, scans tensions sequentially', { timeout: 180_000 }, async () => {
    const offenders: string[] = [];
    for (const [label, filter] of FILTERS) {
      for (const [sort, descending] of SORTS) {
        const q: TensionQuery = { limit: 20, sort, descending, ...filter };
        const name = `${label} sort=${descending ? '-' : ''}${sort}`;
        const first = tensionListSql(q);
        for (const scan of seqScans(await plan(first.sql, first.params))) offenders.push(`${name}: ${scan}`);
        // a search's walk of the list's order, reading the share of the table a probe reads at a million
        // tensions or more (0.2 %; here 1 %): a grouped sort's walk reads a probe's rows from each of its
        // branches, which at 20,000 tensions is a fifth of them, where reading the table is the cheaper
        const walk = tensionWalkSql(q, Math.min(WALK.probe, TENSIONS / 100));
        if (walk) for (const scan of seqScans(await plan(walk.sql, walk.params))) offenders.push(`${name}, walked: ${scan}`);
        const { rows } = await queryTensionRows(em, q);
        if (rows.length <= 20) continue;
        const last = rows[19];
        const second = tensionListSql({ ...q, after: { v: last.sort_value, k: last.sort_key, id: last.id } });
        for (const scan of seqScans(await plan(second.sql, second.params))) offenders.push(`${name}, page 2: ${scan}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  // Migration20261129140000: at a million tensions and 100,000 users, a walk of the parties (as sort=actor
  // and lead read then) of 4,000 tensions was planned as a parallel scan and sort of every party (64–101 ms
  // against 11–17 by their index), which 20 users here cannot show. No list reads them that way since
  // Migration20261129160000, and no query of ours gains from a parallel scan of them: the setting stays.
  it('the party tables are never scanned in parallel', async () => {
    const rows = await em.execute<{ relname: string; reloptions: string[] | null }[]>(
      "select relname, reloptions from pg_class where relname in ('users', 'actors') and relkind = 'r' order by relname",
    );
    expect(rows.map((r) => [r.relname, r.reloptions])).toEqual([
      ['actors', ['parallel_workers=0']],
      ['users', ['parallel_workers=0']],
    ]);
  });

  // The walk's cost is its rows: each read once, tested where it is read, and never stored to be numbered.
  it('a walked search that fills its page reads the list once and numbers no row (every sort)', async () => {
    type Analyzed = PlanNode & { 'Actual Loops': number; 'Actual Rows': number; 'Index Name'?: string };
    const all = (node: Analyzed, found: Analyzed[] = []): Analyzed[] => {
      found.push(node);
      for (const child of (node.Plans ?? []) as Analyzed[]) all(child, found);
      return found;
    };
    const problems: string[] = [];
    let filled = 0;
    for (const [sort, descending] of SORTS) {
      const name = `sort=${descending ? '-' : ''}${sort}`;
      const walk = tensionWalkSql({ limit: 20, sort, descending, q: common }, TENSIONS)!;
      // (under -state the first group, stale, holds fewer than a page of the word: its walk goes on)
      if ((await em.execute(walk.sql, walk.params)).length <= 20) continue;
      filled++;
      const [row] = await em.execute<{ 'QUERY PLAN': [{ Plan: Analyzed }] }[]>(`explain (analyze, format json) ${walk.sql}`, walk.params);
      const json = row['QUERY PLAN'];
      const nodes = all((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan);
      if (nodes.some((n) => n['Node Type'] === 'WindowAgg')) problems.push(`${name}: numbers its rows`);
      // the list's readings of `tensions` (not the page's rows read back by id)
      const readings = nodes.filter((n) => n['Relation Name'] === 'tensions' && n['Index Name'] !== 'tensions_pkey' && n['Actual Loops'] > 0);
      // (without a state filter, `score`, `name` and `createdAt` read their state-led index once a state, merged:
      // three readings, each lazily, as the bound on the rows read below shows: an unmerged union reads every row)
      const branches = sort === 'score' || sort === 'name' || sort === 'createdAt' ? 3 : 1;
      if (readings.length !== branches) problems.push(`${name}: read the list ${readings.length} times`);
      const read = readings.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
      if (read > (TENSIONS * 3) / 4) problems.push(`${name}: read ${read} of ${TENSIONS} rows for a page of a word in 0.3 % of them`);
    }
    expect(problems).toEqual([]);
    expect(filled).toBeGreaterThanOrEqual(13);
  });

  // Migration20261130130000: a walk reads the sort's index alone (its `search_sig` INCLUDEd) where the
  // visibility map says a page is all visible, as autovacuum leaves a table, and reads `tensions` by id only
  // for a row whose signature may hold the text: a common word's walk at a million tensions read 4,000–5,000
  // heap pages at random, one a row.
  it('a walked search reads the sort index alone and the table only where the signature may hold the text (every sort)', async () => {
    type Analyzed = PlanNode & { 'Actual Loops': number; 'Actual Rows': number; 'Index Name'?: string; 'Heap Fetches'?: number };
    const all = (node: Analyzed, found: Analyzed[] = []): Analyzed[] => {
      found.push(node);
      for (const child of (node.Plans ?? []) as Analyzed[]) all(child, found);
      return found;
    };
    await em.execute('vacuum analyze tensions');
    const problems: string[] = [];
    let walks = 0;
    for (const [sort, descending] of SORTS)
      // (the walked indexes carry the state and the score: a party's filter reads the party's own index)
      for (const filter of [{}, { state: 'resolved' }, { minScore: 9 }, { state: 'alive', minScore: 8 }]) {
        const name = `sort=${descending ? '-' : ''}${sort} ${JSON.stringify(filter)}`;
        // (a probe's rows: a walk of the whole table, which no budget asks for, may be planned as a sort of it)
        const walk = tensionWalkSql({ limit: 20, sort, descending, q: common, ...filter }, WALK.probe)!;
        const [row] = await em.execute<{ 'QUERY PLAN': [{ Plan: Analyzed }] }[]>(`explain (analyze, format json) ${walk.sql}`, walk.params);
        const json = row['QUERY PLAN'];
        const nodes = all((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan).filter(
          (n) => n['Relation Name'] === 'tensions' && n['Actual Loops'] > 0,
        );
        const readings = nodes.filter((n) => n['Index Name'] !== 'tensions_pkey');
        for (const n of readings)
          if (n['Node Type'] !== 'Index Only Scan' || n['Heap Fetches'] !== 0)
            problems.push(`${name}: ${n['Node Type']} on ${n['Index Name']} (heap fetches ${n['Heap Fetches']})`);
        const read = readings.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
        // by id: the rows the signature passed (the word is in 0.3 % of them), then the page's rows
        const byId = nodes.filter((n) => n['Index Name'] === 'tensions_pkey').reduce((sum, n) => sum + n['Actual Loops'], 0);
        // (a group may end first: under -state, the stale tensions of score 9 or more)
        if (read >= 1_000) walks++;
        if (byId > read / 5) problems.push(`${name}: ${byId} rows read by id for ${read} walked`);
      }
    expect(problems).toEqual([]);
    expect(walks).toBeGreaterThanOrEqual(SORTS.length * 3);
  });

  it('a search walked in the list order answers the same pages as through the trigram indexes', { timeout: 180_000 }, async () => {
    // always walking (from any probe size, however long), the tuning at this size, and walks of odd sizes
    const tunings: [string, WalkTuning][] = [
      ['walk', { probe: 500, max: Infinity, matchCost: Infinity, scanMax: Infinity, cheap: 0 }],
      ['walk by 7 rows first', { probe: 7, max: Infinity, matchCost: Infinity, scanMax: Infinity, cheap: 0 }],
      ['default', WALK],
    ];
    const searches: Partial<TensionQuery>[] = [
      { q: common },
      { q: common, state: 'alive' },
      { q: common, minScore: 9 },
      { q: RARE_WORD },
      { q: NO_MATCH_WORD },
      { q: 'ka' },
      { q: `${common.slice(1, 5).toUpperCase()}` },
      // a search within one party's tensions: under the other party's sort, matches first
      { q: 'ka', actorId: scaleActorId(7) },
      { q: 'ka', leadUserId: scaleUserId(3) },
      // no trigram: a rare one walks the whole list (here under scanMax) rather than read every row through
      // the indexes' plan
      { q: 'q' },
    ];
    const differences: string[] = [];
    let walkedPages = 0;
    // the grouped sorts (state, actor, lead) with fewer searches: their walks are the same statement around
    // another source; the searches within one party's tensions only under the party sorts
    const grouped = new Set<Partial<TensionQuery>>([searches[0], searches[1], searches[3], searches[6], searches[9]]);
    const partyOnly = new Set<Partial<TensionQuery>>([searches[7], searches[8]]);
    const sortsFor = (search: Partial<TensionQuery>) =>
      SORTS.filter(([sort]) =>
        partyOnly.has(search) ? sort === 'actor' || sort === 'lead' : grouped.has(search) || ['score', 'updatedAt', 'createdAt', 'name'].includes(sort),
      );
    for (const search of searches) {
      for (const [sort, descending] of sortsFor(search)) {
        for (const [label, tuning, remembering] of [...tunings.map(([l, t]) => [l, t, false] as const), ['walk, remembering', tunings[0][1], true] as const]) {
          const name = `${JSON.stringify(search)} sort=${descending ? '-' : ''}${sort} (${label})`;
          // the later pages start from what the first learnt
          const memory: SearchMemory | undefined = remembering ? new Map() : undefined;
          let after: TensionQuery['after'];
          for (let page = 1; page <= 4; page++) {
            const q: TensionQuery = { limit: 20, sort, descending, ...search, after };
            const statements: string[] = [];
            const watched = {
              execute: (sql: string, params: unknown[]) => {
                statements.push(sql);
                return em.execute(sql, params);
              },
            } as unknown as EntityManager;
            const { rows: walked, resume } = await queryTensionRows(watched, q, tuning, memory);
            if (resume) differences.push(`${name}, page ${page}: stopped at scanMax`);
            const { sql, params } = tensionListSql(q);
            const indexed = await em.execute<{ id: string; sort_value: string | null; sort_key: string | null }[]>(sql, params);
            const shape = (rows: { id: string; sort_value: string | null; sort_key: string | null }[]) =>
              rows.map((r) => `${r.sort_value}/${r.sort_key}/${r.id}`);
            if (JSON.stringify(shape(walked)) !== JSON.stringify(shape(indexed))) differences.push(`${name}, page ${page}`);
            if (!statements.some((s) => s.includes('tension_search'))) walkedPages++;
            if (indexed.length <= 20) break;
            after = { v: indexed[19].sort_value, k: indexed[19].sort_key, id: indexed[19].id };
          }
        }
      }
    }
    expect(differences).toEqual([]);
    // the walks answered (without the indexes) a good share of the pages: always-walking tunings find every
    // text except a rare one early enough
    expect(walkedPages).toBeGreaterThan(100);
  });

  // The walk tests `tensions.search_text` (the texts lower-cased once, joined by U+001F); the trigram
  // indexes' plan tests each text with ILIKE. Texts at the edges: letters beyond ASCII, case, wildcards,
  // empty and missing texts, and searches that would span two texts or hold the separator themselves.
  it("the walk's text test answers what ILIKE answers on each text, at the texts' edges", async () => {
    const texts: [string, string | null, string | null][] = [
      ['Été à Paris', 'ÇA VA, Straße', null],
      ['abc', 'def', 'ghi'],
      ['100% sure_thing \\ back', '', 'ends with a space '],
      ['solo', null, null],
      ['x'.repeat(3_000), 'a long text: TOASTED', 'y'.repeat(3_000)],
      // the signature's edges (search_sig): trigrams across a word's end, beside letters beyond ASCII, digits
      ['Re-open the café-bar', 'naïve coöperation', 'Kelvin 273K'],
      ['İstanbul 2026', 'a1b2c3 MuDDLeD CaSe', 'ﬁnal ligature'],
    ];
    const searches = [
      'été',
      'ÉTÉ',
      'ça va',
      'à p',
      'STRASSE',
      'straße',
      'abc',
      'DEF',
      'cd',
      'c\x1fd',
      'f\x1fg',
      '\x1f',
      'solo',
      'o\x1f',
      '0% s',
      '%',
      '_',
      'à_p',
      '\\',
      'space ',
      'toasted',
      'xy',
      'x',
      'open the',
      'OPEN THE CAF',
      're-op',
      'é-ba',
      'fé-bar',
      'ebar',
      'peration',
      'operation',
      'cooper',
      'aïve',
      'kelvin 2',
      '273k',
      'stanbul 2',
      '2026',
      'a1b2c3',
      'muddled case',
      'ed ca',
      'final',
      'inal lig',
      'nal lig',
    ];
    const actor = '00000000-0000-4000-a000-999999999999';
    const differences: string[] = [];
    const found: Record<string, string[]> = {};
    const rollback = new Error('rollback');
    await em
      .transactional(async (tx) => {
        await tx.execute(`insert into actors (id, name, type, created_at, updated_at) values (?, 'Edges', 'individual', now(), now())`, [actor]);
        for (const [i, [name, context, future]] of texts.entries())
          await tx.execute(
            `insert into tensions (id, name, current_context, potential_future, score, state, actor_id, version, created_at, updated_at)
           values (?, ?, ?, ?, 5, 'alive', ?, 1, now(), now())`,
            [`00000000-0000-4000-9999-${String(i + 1).padStart(12, '0')}`, name, context, future, actor],
          );
        for (const text of searches) {
          const q: TensionQuery = { limit: 20, sort: 'score', descending: true, actorId: actor, q: text };
          const walked = (await queryTensionRows(tx, q, { ...WALK, probe: 500, max: Infinity, matchCost: Infinity })).rows
            .map((r) => r.name.slice(0, 5))
            .sort();
          const { sql, params } = tensionListSql(q);
          const indexed = (await tx.execute<{ name: string }[]>(sql, params)).map((r) => r.name.slice(0, 5)).sort();
          found[text] = walked;
          if (JSON.stringify(walked) !== JSON.stringify(indexed))
            differences.push(`${JSON.stringify(text)}: walked ${walked.join(',')}, indexed ${indexed.join(',')}`);
        }
        throw rollback; // leaves the scale data as it was for the other tests
      })
      .catch((err: unknown) => {
        if (err !== rollback) throw err;
      });
    expect(differences).toEqual([]);
    // and what both answer is ILIKE's, on either database's lower()
    expect(found['abc']).toEqual(['abc']);
    expect(found['DEF']).toEqual(['abc']);
    expect(found['cd']).toEqual([]); // not across two texts
    expect(found['c\x1fd']).toEqual([]);
    expect(found['0% s']).toEqual(['100% ']);
    expect(found['à_p']).toEqual([]); // `_` is a character, not a wildcard
    expect(found['toasted']).toEqual(['xxxxx']);
    expect(found['x']).toEqual(['xxxxx']);
    expect(found['OPEN THE CAF']).toEqual(['Re-op']); // across words
    expect(found['fé-bar']).toEqual(['Re-op']); // an ASCII trigram beside a letter beyond it
    expect(found['ebar']).toEqual([]);
    expect(found['peration']).toEqual(['Re-op']);
    expect(found['operation']).toEqual([]); // coöperation
    expect(found['cooper']).toEqual([]);
    expect(found['273k']).toEqual(['Re-op']);
    expect(found['stanbul 2']).toEqual(['İstan']);
    expect(found['muddled case']).toEqual(['İstan']);
    expect(found['nal lig']).toEqual(['İstan']);
    expect(found['inal lig']).toEqual([]); // the ligature ﬁ is one letter
  });

  // A text without a trigram is counted on the lower-cased copy (a scan of `tensions`), not through
  // `tension_search`'s ILIKEs: the same counts, up to the bound.
  it('a text without a trigram is counted as the ILIKEs count it, up to the bound', async () => {
    const differences: string[] = [];
    for (const text of ['q', 'Q', 'xq', 'ka', 'k', 'K', '%', '_', ' ', '\x1f', 'ix']) {
      for (const [bound, filter] of [
        [10_000, {}],
        [5, {}],
        [10_000, { state: 'resolved' }],
      ] as const) {
        const { n: counted, partial } = await countTensionRows(em, { ...filter, q: text }, bound);
        if (partial) differences.push(`${JSON.stringify(text)} ${JSON.stringify(filter)} bound ${bound}: partial`);
        const p = likePattern(text);
        const [{ n }] = await em.execute<{ n: number }[]>(
          `select count(*)::int as n from (select 1 from tensions t where (t.name ilike ? or t.current_context ilike ? or t.potential_future ilike ?)
             ${'state' in filter ? 'and t.state = ?' : ''} limit ?) s`,
          [p, p, p, ...('state' in filter ? [filter.state] : []), bound + 1],
        );
        if (counted !== n) differences.push(`${JSON.stringify(text)} ${JSON.stringify(filter)} bound ${bound}: ${counted}, ILIKE ${n}`);
      }
    }
    expect(differences).toEqual([]);
    expect((await countTensionRows(em, { q: 'q' }, 10_000)).n).toBeGreaterThan(0);
    expect(await countTensionRows(em, { q: 'ka' }, 5)).toEqual({ n: 6, partial: false });
  });

  // A text without a trigram has no index that finds it, so a rare one would read the whole list. One request
  // reads at most scanMax rows: its page may be short, and its cursor goes on after the last row it read.
  it(
    'a search without a trigram reads at most scanMax rows a request, and its pages, followed to the end, hold every match in order',
    { timeout: 180_000 },
    async () => {
      const scanMax = 1_500;
      const problems: string[] = [];
      let shortPages = 0;
      // rare (34 matches), none, and rare across a space in capitals
      for (const text of ['q', 'xq', 'E Q']) {
        for (const [sort, descending] of SORTS) {
          const name = `${JSON.stringify(text)} sort=${descending ? '-' : ''}${sort}`;
          const every = { limit: TENSIONS, sort, descending, q: text };
          const all = (await em.execute<{ id: string }[]>(tensionListSql(every).sql, tensionListSql(every).params)).map((r) => r.id);
          const paged: string[] = [];
          let after: TensionQuery['after'];
          const most = scanMax;
          for (let request = 1; ; request++) {
            if (request > all.length / 20 + TENSIONS / most + 4) {
              problems.push(`${name}: more requests than the list has stretches`);
              break;
            }
            let read = 0;
            const watched = {
              execute: (sql: string, params: unknown[]) => {
                if (sql.includes('tension_search')) problems.push(`${name}: request ${request} read the indexes' plan`);
                if (sql.includes('walk_end')) read += Number(params.at(-2)); // the walk's budget (tensionWalkSql)
                return em.execute(sql, params);
              },
            } as unknown as EntityManager;
            const { rows, resume } = await queryTensionRows(watched, { limit: 20, sort, descending, q: text, after }, { ...WALK, scanMax });
            // a walk that read only the ends of groups reads one row more each, at most one per group
            if (read > most + 4) problems.push(`${name}: request ${request} read ${read} rows`);
            const page = rows.slice(0, 20);
            paged.push(...page.map((r) => r.id));
            const last = rows.length > 20 ? page.at(-1)! : resume;
            if (resume && rows.length <= 20) shortPages++;
            if (!last) break;
            after = { v: last.sort_value, k: last.sort_key, id: last.id };
          }
          if (JSON.stringify(paged) !== JSON.stringify(all)) problems.push(`${name}: ${paged.length} paged against ${all.length} matches`);
        }
      }
      expect(problems).toEqual([]);
      expect(shortPages).toBeGreaterThan(SORTS.length);
    },
  );

  it('a text without a trigram is counted over at most scanMax rows, and a count of part of the list says so', async () => {
    const ilike = async (text: string, actorId?: string) => {
      const p = likePattern(text);
      const [{ n }] = await em.execute<{ n: number }[]>(
        `select count(*)::int as n from tensions t where (t.name ilike ? or t.current_context ilike ? or t.potential_future ilike ?) ${actorId ? 'and t.actor_id = ?' : ''}`,
        [p, p, p, ...(actorId ? [actorId] : [])],
      );
      return n;
    };
    const part = await countTensionRows(em, { q: 'q' }, 10_000, 1_500);
    expect(part.partial).toBe(true);
    expect(part.n).toBeLessThanOrEqual(await ilike('q'));
    // one actor's tensions, fewer than scanMax: counted exactly, at scanMax exactly their number, and one
    // fewer is part of them
    const actorId = scaleActorId(7);
    const [{ rows }] = await em.execute<{ rows: number }[]>('select count(*)::int as rows from tensions where actor_id = ?', [actorId]);
    expect(rows).toBeLessThan(1_500);
    expect(await countTensionRows(em, { q: 'q', actorId }, 10_000, 1_500)).toEqual({ n: await ilike('q', actorId), partial: false });
    expect(await countTensionRows(em, { q: 'q', actorId }, 10_000, rows)).toEqual({ n: await ilike('q', actorId), partial: false });
    expect((await countTensionRows(em, { q: 'q', actorId }, 10_000, rows - 1)).partial).toBe(true);
    // past the bound, a count is "more than the bound", however much of the list it read
    expect(await countTensionRows(em, { q: 'ka' }, 5, 1_500)).toEqual({ n: 6, partial: false });
    // a text with a trigram is counted through its indexes, never partly
    expect(await countTensionRows(em, { q: RARE_WORD }, 10_000, 1)).toEqual({ n: await ilike(RARE_WORD), partial: false });
  });

  it('a search asked again starts from what the last one learnt: a rare text goes straight to the indexes', async () => {
    const memory: SearchMemory = new Map();
    const statements = async (q: TensionQuery, tuning = WALK) => {
      const seen: string[] = [];
      const watched = {
        execute: (sql: string, params: unknown[]) => {
          seen.push(sql.includes('tension_search') ? 'indexes' : 'walk');
          return em.execute(sql, params);
        },
      } as unknown as EntityManager;
      await queryTensionRows(watched, q, tuning, memory);
      return seen;
    };
    const rare: TensionQuery = { limit: 20, sort: 'score', descending: true, q: RARE_WORD };
    expect(await statements(rare)).toEqual(['walk', 'indexes']); // the probe found none
    expect(await statements(rare)).toEqual(['indexes']);
    expect(await statements({ ...rare, q: RARE_WORD.toUpperCase() })).toEqual(['indexes']); // the same text to ILIKE
    // a rare text without a trigram walks to the list's end instead (the indexes' plan would read every row
    // too), under every sort
    expect(await statements({ ...rare, q: 'q' })).not.toContain('indexes');
    expect(await statements({ ...rare, q: 'q', sort: 'lead', descending: false })).not.toContain('indexes');
    // another filter is another search
    expect(await statements({ ...rare, state: 'alive' })).toEqual(['walk', 'indexes']);
    // and another order (matches cluster differently in each)
    expect(await statements({ ...rare, sort: 'name', descending: false })).toEqual(['walk', 'indexes']);
    // a word the probe found a few times walks on while the walk stays short (`cheap`), however cheap the
    // indexes look (priced here so that they win at the word's frequency); past `cheap` they do
    const cheapIndexes = { ...WALK, matchCost: 1 };
    const few: TensionQuery = { limit: 20, sort: 'createdAt', descending: true, q: word(123) };
    expect(await statements(few, cheapIndexes)).not.toContain('indexes');
    expect(await statements({ ...few, sort: 'updatedAt' }, { ...cheapIndexes, cheap: 0 })).toContain('indexes');
    // a common word, always walked: the second search walks once, as far as its first said a page needs
    const walking = { ...WALK, probe: 1_000, max: Infinity, matchCost: Infinity };
    const common: TensionQuery = { limit: 20, sort: 'name', descending: false, q: word(123) };
    const first = await statements(common, walking);
    expect(first.length).toBeGreaterThan(1);
    expect(first).not.toContain('indexes');
    expect((await statements(common, walking)).length).toBeLessThan(first.length);
    // asked again and again, a common word keeps walking, one statement each: a walk that fills its page
    // does not count the rows it read, and what it teaches must not lower the frequency it was asked with
    // (priced so that the walk wins at the word's frequency, and the indexes at 40 % of it)
    const priced = { ...WALK, probe: 3_000, max: Infinity, matchCost: 1_000 };
    const again: TensionQuery = { ...common, sort: 'score', descending: true };
    expect(await statements(again, priced)).not.toContain('indexes');
    for (let i = 0; i < 8; i++) expect(await statements(again, priced), `asked again, ${i + 1}`).toEqual(['walk']);

    // what is older than SEARCH_MEMORY_MS is probed again
    const [key] = [...memory.keys()];
    memory.set(key, { ...memory.get(key)!, at: performance.now() - SEARCH_MEMORY_MS - 1 });
    expect(await statements(rare)).toEqual(['walk', 'indexes']);
    // and the memory keeps at most SEARCH_MEMORY_ENTRIES, the oldest going first
    memory.clear();
    for (let i = 0; i < SEARCH_MEMORY_ENTRIES; i++) memory.set(`filler ${i}`, { frequency: 0, tableRows: 0, at: performance.now() });
    await statements(rare);
    expect(memory.size).toBe(SEARCH_MEMORY_ENTRIES);
    expect(memory.has('filler 0')).toBe(false);
    expect(memory.has('filler 1')).toBe(true);
  });

  it('the feed filtered by a rare type or by one stream reads its own index, not the whole feed', async () => {
    const [{ h }] = await em.execute<{ h: string }[]>('select pg_snapshot_xmax(pg_current_snapshot())::text as h');
    const filters: [string, FeedFilter, string | null][] = [
      ['types=TensionRevived', { types: ['TensionRevived'] }, 'type'],
      ['types=TensionRevived,TensionRenamed (both rare)', { types: ['TensionRevived', 'TensionRenamed'] }, 'type'],
      ['streamId', { streamId: scaleTensionId(777) }, 'stream_id'],
      ['no filter', {}, null],
    ];
    const offenders: string[] = [];
    for (const [label, filter, column] of filters) {
      const { sql, params, prepare } = feedPageSql(h, FEED_START, 100, filter);
      const plans: [string, PlanNode][] = [[label, await plan(sql, params)]];
      if (onPostgres && prepare) plans.push([`${label} (generic plan)`, await genericPlan(sql, params)]);
      for (const [name, root] of plans) {
        for (const scan of seqScans(root)) offenders.push(`${name}: ${scan}`);
        if (!column) continue;
        // The filter must bound the index scan, not be applied to every event the scan walks past.
        const nodes = nodesOn('domain_events', root);
        const bounded = nodes.some((n) => `${n['Index Cond'] ?? ''} ${n['Recheck Cond'] ?? ''}`.includes(`${column} =`));
        const filtered = nodes.some((n) => (n.Filter ?? '').includes(`${column} =`));
        if (!bounded || filtered) offenders.push(`${name}: ${column} filters rows instead of bounding the index scan`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
