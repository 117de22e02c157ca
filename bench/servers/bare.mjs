// Bench-only: the thinnest Node around the service's own SQL, to price everything else the service does.
// POST /api/v1/tensions/:id/rescore runs exactly the statements a REST rescore runs (the bearer-key lookup,
// the row read, the one write statement: imported from dist/, so they cannot drift), prepared as the
// service prepares them, on a bare `pg` pool
// behind bare Express: no MikroORM, no middleware but the JSON body parser, no validation, logging,
// metrics or idempotency. Never shipped, never in dist/. It is a reference point, not a baseline: the
// ceiling stays pgbench's transaction.
import { createHash, randomUUID } from 'node:crypto';
import express from 'express';
import pg from 'pg';
import { keyHolderSql } from '../../dist/server/persistence/api-keys.js';
import { TENSION_FROM, TENSION_SELECT, rowToState, rowToView, tensionWriteSql } from '../../dist/server/persistence/tension-projection.js';

/** MikroORM's `?` placeholders as pg's `$n` (none of these statements has a literal `?`). */
const numbered = (sql) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** A named statement per text, as the service's hot path keeps them (server/persistence/statements.ts). */
const names = new Map();
const query = (text, values) => {
  let name = names.get(text);
  if (!name) names.set(text, (name = `bare_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  return pool.query({ name, text, values });
};

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_MAX ?? 10) });
const KEY = numbered(keyHolderSql);
const READ = numbered(`${TENSION_SELECT} from tensions t ${TENSION_FROM} where t.id = ?`);

const app = express();
app.use(express.json());
app.get('/readyz', (_req, res) => void res.json({ status: 'ready' }));
app.post('/api/v1/tensions/:id/rescore', async (req, res) => {
  try {
    const bearer = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
    const now = new Date();
    const { rows: keys } = await query(KEY, [createHash('sha256').update(bearer).digest('hex'), now]);
    const key = keys[0];
    if (!key || !key.grants.includes('tensions:write')) return void res.status(401).end();
    const { rows } = await query(READ, [req.params.id]);
    if (!rows[0]) return void res.status(404).end();
    const state = rowToState(rows[0]);
    const score = Number(req.body?.score);
    if (score === state.score) return void res.json({ tension: rowToView(rows[0]), event: null });
    const metadata = {
      actorKind: key.type,
      userId: key.user_id,
      userName: key.user_name,
      apiKeyId: key.id,
      apiKeyName: key.name,
      via: 'rest',
      requestId: randomUUID(),
      correlationId: null,
      causationId: null,
    };
    const event = { type: 'TensionRescored', data: { score, previousScore: state.score } };
    const write = tensionWriteSql(
      {
        stream: { type: 'tension', id: state.id },
        head: state.version,
        next: { ...state, score, version: state.version + 1, updatedAt: now },
        events: [event],
        metadata,
        opts: { newId: randomUUID, occurredAt: now },
      },
      'fail',
    );
    const { rows: written } = await query(numbered(write.sql), write.params);
    if (!written[0]) return void res.status(409).end();
    const { events, ...tension } = written[0];
    res.json({ tension: rowToView(tension), event: events[0] });
  } catch (err) {
    res.status(500).json({ error: String(err) });
  }
});
const server = app.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
