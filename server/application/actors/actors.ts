// Actor use cases: market participants that tensions belong to (SPEC §2, §3 "Actor deletion").
import { ok, refuse, type Result } from '../../domain/errors.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { z } from 'zod';
import { decodeCursor, textKey, toPage, uuidKey } from '../paging.js';
import { idOf } from '../schemas.js';
import { parseInput } from '../validate.js';
import { runTensionCommand } from '../tensions/command-path.js';
import { feedCommitted } from '../events/feed-hub.js';
import { actorTarget, fieldsOf, recordAudit } from '../audit/audit.js';
import { reader, transact, type Tx } from '../../persistence/transaction.js';
import * as actors from '../../persistence/actors.js';
import { takeFeedLock } from '../../persistence/event-store.js';
import { createActorInput, listActorsQuery, updateActorInput, type ActorPage, type ActorView } from './actor.inputs.js';
import { staleVersion } from '../versions.js';
import { lockRowVersion } from '../../persistence/row-versions.js';
import { boundedTotal, TOTAL_BOUND, type ListTotal } from '../list-total.js';

const iso = (d: Date | string) => new Date(d).toISOString();

function toView(row: actors.ActorRow): ActorView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    tensionCount: Number(row.tension_count),
    version: row.version,
  };
}

const actorNotFound = (id: string) => refuse('actor_not_found', `No actor ${id}.`);

async function load(e: Tx, id: string): Promise<ActorView | null> {
  const row = await actors.actorRowById(e, id);
  return row ? toView(row) : null;
}

export async function listActors(deps: Deps, ctx: Ctx, query: unknown): Promise<Result<ActorPage>> {
  const denied = authorize(ctx, 'actors.list');
  if (denied) return denied;
  const parsed = parseInput(listActorsQuery, query);
  if (!parsed.ok) return parsed;
  const q = parsed.value;
  const cursor = q.cursor ? decodeCursor(deps, 'actors', q.cursor, z.strictObject({ n: textKey, id: uuidKey })) : ok(undefined);
  if (!cursor.ok) return cursor;
  const rows = await actors.listActorRows(reader(deps.orm), { type: q.type, q: q.q, after: cursor.value }, q.limit + 1);
  return ok(toPage(deps, 'actors', rows, q.limit, (r) => ({ n: r.sort_name, id: r.id }), toView));
}

export const countActorsQuery = listActorsQuery.pick({ type: true, q: true });

/** How many actors the list's filters match, exact up to TOTAL_BOUND (a count with a LIMIT). */
export async function countActors(deps: Deps, ctx: Ctx, query: unknown): Promise<Result<ListTotal>> {
  const denied = authorize(ctx, 'actors.count');
  if (denied) return denied;
  const parsed = parseInput(countActorsQuery, query);
  if (!parsed.ok) return parsed;
  return ok(boundedTotal(await actors.countActorRows(reader(deps.orm), parsed.value, TOTAL_BOUND)));
}

export async function getActor(deps: Deps, ctx: Ctx, rawId: string): Promise<Result<ActorView>> {
  const denied = authorize(ctx, 'actors.get');
  if (denied) return denied;
  const id = idOf(rawId);
  if (!id) return actorNotFound(rawId);
  const actor = await load(reader(deps.orm), id);
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
    await actors.insertActor(e, { id, name: parsed.value.name, type: parsed.value.type, at: now });
    await recordAudit(deps, e, ctx, { action: 'actor.created', target: actorTarget(id, parsed.value.name), changes: fieldsOf(parsed.value) });
    return ok((await load(e, id))!);
  });
}

export async function updateActor(deps: Deps, ctx: Ctx, rawId: string, input: unknown): Promise<Result<ActorView>> {
  const denied = authorize(ctx, 'actors.update');
  if (denied) return denied;
  const parsed = parseInput(updateActorInput, input);
  if (!parsed.ok) return parsed;
  const id = idOf(rawId);
  if (!id) return actorNotFound(rawId);
  const { name, expectedVersion } = parsed.value;
  let renamed = false;
  const result = await transact(deps.orm, async (tx) => {
    const version = await lockRowVersion(tx, 'actors', id);
    if (version === null) return actorNotFound(id);
    const stale = staleVersion('actor', version, expectedVersion);
    if (stale) return stale;
    // renaming to the same name changes nothing, not even updatedAt, the version or the audit trail
    const previous = await actors.renameActor(tx, id, name, deps.clock());
    renamed = previous !== null;
    if (previous !== null)
      await recordAudit(deps, tx, ctx, { action: 'actor.updated', target: actorTarget(id, name), changes: { name: { from: previous, to: name } } });
    return ok((await load(tx, id))!);
  });
  // its tensions take the new name in the background once the rename commits (Migration20261129160000)
  if (result.ok && renamed) deps.partyNames.renamed();
  return result;
}

/**
 * Discards every tension of the actor through the tension command path, then deletes the actor:
 * one transaction, all or nothing. Locks the actor (no tension can be sensed on or moved to it
 * meanwhile), then its tensions' rows in id order: the order every command and the rebuild take them in
 * (actor → tension row), so it cannot deadlock with them. A command that read one of these rows before
 * this commits finds it gone and answers 404.
 */
export async function deleteActor(deps: Deps, ctx: Ctx, rawId: string): Promise<Result<null>> {
  const denied = authorize(ctx, 'actors.delete');
  if (denied) return denied;
  const id = idOf(rawId);
  if (!id) return actorNotFound(rawId);
  let discarded = 0;
  const result = await transact(deps.orm, async (tx) => {
    await takeFeedLock(tx); // it appends after locking the actor (see takeFeedLock)
    const actor = await actors.lockActor(tx, id);
    if (!actor) return actorNotFound(id);
    const tensions = await actors.lockTensionIdsOf(tx, id);
    discarded = tensions.length;
    for (const tensionId of tensions) {
      // actors:delete covers the discards it causes: no tensions:delete check here
      const result = await runTensionCommand(tx, deps, ctx, {
        id: tensionId,
        expectedVersion: undefined,
        build: async () => ok({ type: 'DiscardTension', id: tensionId, at: deps.clock() }),
      });
      if (!result.ok) throw new Error(`discarding tension ${tensionId} of actor ${id} failed: ${result.code}`);
    }
    await actors.deleteActorRow(tx, id);
    await recordAudit(deps, tx, ctx, {
      action: 'actor.deleted',
      target: actorTarget(id, actor.name),
      changes: { ...fieldsOf({ name: actor.name, type: actor.type }, true), discardedTensions: { from: tensions.length, to: 0 } },
    });
    return ok(null);
  });
  if (result.ok && discarded > 0) feedCommitted(deps);
  return result;
}
