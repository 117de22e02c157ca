// Actor use cases: market participants that tensions belong to (SPEC §2, §3 "Actor deletion").
import type { EntityManager } from '@mikro-orm/postgresql';
import { ok, refuse, type Result } from '../../domain/errors.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { z } from 'zod';
import { decodeCursor, encodeCursor, textKey, uuidKey } from '../paging.js';
import { likePattern } from '../../persistence/transaction.js';
import { UUID_RE } from '../../domain/ids.js';
import { parseInput } from '../validate.js';
import { runTensionCommand } from '../tensions/command-path.js';
import { actorTarget, fieldsOf, recordAudit } from '../audit/audit.js';
import { transact } from '../../persistence/transaction.js';
import { createActorInput, listActorsQuery, updateActorInput, type ActorPage, type ActorView } from './actor.inputs.js';
import { staleVersion } from '../versions.js';
import { lockRowVersion } from '../../persistence/row-versions.js';

interface ActorRow {
  id: string;
  name: string;
  type: ActorView['type'];
  created_at: Date | string;
  updated_at: Date | string;
  tension_count: number | string;
  version: number;
  sort_name: string;
}

const SELECT = `select a.id, a.name, a.type, a.created_at, a.updated_at, a.version,
  (select count(*) from tensions t where t.actor_id = a.id)::int as tension_count, lower(a.name) as sort_name from actors a`;

const iso = (d: Date | string) => new Date(d).toISOString();

function toView(row: ActorRow): ActorView {
  return { id: row.id, name: row.name, type: row.type, createdAt: iso(row.created_at), updatedAt: iso(row.updated_at), tensionCount: Number(row.tension_count), version: row.version };
}

const em = (deps: Deps) => deps.orm.em.fork();
const actorNotFound = (id: string) => refuse('actor_not_found', `No actor ${id}.`);

async function load(e: EntityManager, id: string): Promise<ActorView | null> {
  const [row] = await e.execute<ActorRow[]>(`${SELECT} where a.id = ?`, [id]);
  return row ? toView(row) : null;
}

export async function listActors(deps: Deps, ctx: Ctx, query: unknown): Promise<Result<ActorPage>> {
  const denied = authorize(ctx, 'actors.list');
  if (denied) return denied;
  const parsed = parseInput(listActorsQuery, query);
  if (!parsed.ok) return parsed;
  const q = parsed.value;
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.type) {
    where.push('a.type = ?');
    params.push(q.type);
  }
  if (q.q) {
    where.push('a.name ilike ?');
    params.push(likePattern(q.q));
  }
  if (q.cursor) {
    const cursor = decodeCursor(deps, 'actors', q.cursor, z.strictObject({ n: textKey, id: uuidKey }));
    if (!cursor.ok) return cursor;
    where.push('(lower(a.name), a.id) > (?, ?::uuid)');
    params.push(cursor.value.n, cursor.value.id);
  }
  const rows = await em(deps).execute<ActorRow[]>(
    `${SELECT} ${where.length ? `where ${where.join(' and ')}` : ''} order by lower(a.name), a.id limit ?`,
    [...params, q.limit + 1],
  );
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return ok({
    data: page.map(toView),
    nextCursor: rows.length > q.limit ? encodeCursor(deps, 'actors', { n: last.sort_name, id: last.id }) : null,
  });
}

export async function getActor(deps: Deps, ctx: Ctx, id: string): Promise<Result<ActorView>> {
  const denied = authorize(ctx, 'actors.get');
  if (denied) return denied;
  if (!UUID_RE.test(id)) return actorNotFound(id);
  const actor = await load(em(deps), id);
  return actor ? ok(actor) : actorNotFound(id);
}

export async function createActor(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<ActorView>> {
  const denied = authorize(ctx, 'actors.create');
  if (denied) return denied;
  const parsed = parseInput(createActorInput, input);
  if (!parsed.ok) return parsed;
  const id = deps.newId();
  const now = deps.clock();
  return transact(deps.orm, async (e) => {
    await e.execute('insert into actors (id, name, type, created_at, updated_at) values (?, ?, ?, ?, ?)', [id, parsed.value.name, parsed.value.type, now, now]);
    await recordAudit(deps, e, ctx, { action: 'actor.created', target: actorTarget(id, parsed.value.name), changes: fieldsOf(parsed.value) });
    return ok((await load(e, id))!);
  });
}

export async function updateActor(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<ActorView>> {
  const denied = authorize(ctx, 'actors.update');
  if (denied) return denied;
  const parsed = parseInput(updateActorInput, input);
  if (!parsed.ok) return parsed;
  if (!UUID_RE.test(id)) return actorNotFound(id);
  const { name, expectedVersion } = parsed.value;
  return transact(deps.orm, async (tx) => {
    const version = await lockRowVersion(tx, 'actors', id);
    if (version === null) return actorNotFound(id);
    const stale = staleVersion('actor', version, expectedVersion);
    if (stale) return stale;
    // renaming to the same name changes nothing, not even updatedAt, the version or the audit trail
    const [renamed] = await tx.execute<{ previous: string }[]>(
      `with old as (select id, name from actors where id = ?)
       update actors a set name = ?, updated_at = ?, version = a.version + 1 from old where a.id = old.id and old.name <> ? returning old.name as previous`,
      [id, name, deps.clock(), name],
    );
    if (renamed) await recordAudit(deps, tx, ctx, { action: 'actor.updated', target: actorTarget(id, name), changes: { name: { from: renamed.previous, to: name } } });
    return ok((await load(tx, id))!);
  });
}

/**
 * Discards every tension of the actor through the tension command path, then deletes the actor:
 * one transaction, all or nothing. Locks the actor (no tension can be sensed on or moved to it
 * meanwhile), then its tensions' rows in id order: the order every command and the rebuild take them in
 * (actor → tension row), so it cannot deadlock with them. A command that read one of these rows before
 * this commits finds it gone and answers 404.
 */
export async function deleteActor(deps: Deps, ctx: Ctx, id: string): Promise<Result<null>> {
  const denied = authorize(ctx, 'actors.delete');
  if (denied) return denied;
  if (!UUID_RE.test(id)) return actorNotFound(id);
  return em(deps).transactional(async (tx) => {
    const [actor] = await tx.execute<{ name: string; type: string }[]>('select name, type from actors where id = ? for update', [id]);
    if (!actor) return actorNotFound(id);
    const tensions: { id: string }[] = await tx.execute('select id from tensions where actor_id = ? order by id for update', [id]);
    for (const t of tensions) {
      // actors:delete covers the discards it causes: no tensions:delete check here
      const result = await runTensionCommand(tx, deps, ctx, {
        id: t.id,
        expectedVersion: undefined,
        build: async () => ok({ type: 'DiscardTension', id: t.id, at: deps.clock() }),
      });
      if (!result.ok) throw new Error(`discarding tension ${t.id} of actor ${id} failed: ${result.code}`);
    }
    await tx.execute('delete from actors where id = ?', [id]);
    await recordAudit(deps, tx, ctx, { action: 'actor.deleted', target: actorTarget(id, actor.name), changes: { ...fieldsOf({ name: actor.name, type: actor.type }, true), discardedTensions: { from: tensions.length, to: 0 } } });
    return ok(null);
  });
}
