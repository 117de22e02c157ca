// Micro-benchmarks of per-request work on the hot path, each in µs per call (median of 5 rounds), on the
// built service (npm run build:server first): what one saving of issue 37 is worth, which a loaded machine's
// req/s cannot show. DATABASE_URL: a PostgreSQL database to open the ORM on (nothing is written).
//   DATABASE_URL=postgres://… node bench/hot-micro.mjs
import { Writable } from 'node:stream';
import { parse } from 'graphql';
import { openDatabase } from '../dist/server/persistence/database.js';
import { createLogger } from '../dist/server/logger.js';
import { schema } from '../dist/schema/index.js';
import { listBounds, listItems, useListBudget } from '../dist/server/graphql/list-budget.js';

const time = (label, n, fn) => {
  for (let i = 0; i < n; i++) fn();
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    rounds.push(Number(process.hrtime.bigint() - t) / 1e3 / n);
  }
  rounds.sort((a, b) => a - b);
  console.log(`${label}: ${rounds.map((x) => x.toFixed(2)).join(' ')} µs per call (median ${rounds[2].toFixed(2)})`);
};

const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', poolMax: 2 });
let kept = [];
time('orm.em.fork() (was: twice per REST rescore)', 20_000, () => {
  kept.push(db.orm.em.fork());
  if (kept.length > 100) kept = [];
});
await db.close();

const devNull = new Writable({ write: (_c, _e, done) => done() });
const logger = createLogger('info', devNull);
time('logger.child({ requestId }) (once per request)', 20_000, () => logger.child({ requestId: 'a0c1d2e3-0000-4000-8000-000000000000' }));
const fields = {
  method: 'POST',
  path: '/api/v1/tensions/00000000-0000-4000-8000-100000000001/rescore',
  status: 200,
  client: '127.0.0.1',
  userId: 'u',
  apiKeyId: 'k',
  ms: 3.21,
};
const child = logger.child({ requestId: 'a0c1d2e3-0000-4000-8000-000000000000' });
time('the access log line through the redacting logger (was)', 20_000, () => child.info(fields, 'request'));
const access = logger.child({}, { redact: [] });
time('the access log line, unredacted (now)', 20_000, () => access.info({ requestId: 'a0c1d2e3-0000-4000-8000-000000000000', ...fields }, 'request'));

const bounds = listBounds(schema);
const rescore = parse(`mutation($id: ID!, $input: RescoreTensionInput!) { rescoreTension(id: $id, input: $input) {
  tension { id name score state version updatedAt actor { id name } } event { version type summary summaryKey } } }`);
const variables = { id: '00000000-0000-4000-8000-100000000001', input: { score: 7 } };
const plugin = useListBudget(schema);
const hook = {
  args: { schema, document: rescore, variableValues: variables },
  setResultAndStopExecution: () => {
    throw new Error('refused');
  },
};
time('GraphQL list budget, counted (was: every rescoreTension)', 20_000, () => listItems(schema, bounds, rescore, undefined, variables));
time('GraphQL list budget, the plugin (a list-free document)', 20_000, () => plugin.onExecute(hook));
process.exit(0);
