// Reading the past (SPEC §15): a tension as it was at a version or a moment, and what changed between two
// versions. Both fold the stream with `evolve`, the fold the projection and the rebuild use: the past is
// never worked out a second way.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ok, refuse, type Result } from '../../domain/errors.js';
import { evolvePast, foldPast, NOT_YET, type PastTension } from '../../domain/tension.past.js';
import type { RecordedTensionEvent } from '../../domain/tension.types.js';
import { readStream, streamHeadVersion, streamVersionAt, type StoredEvent } from '../../persistence/event-store.js';
import { loadParties } from '../../persistence/tension-parties.js';
import { reader } from '../../persistence/transaction.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { idOf } from '../schemas.js';
import { parseInput } from '../validate.js';
import { notFound, TENSION_STREAM } from './command-path.js';
import { CHANGE_FIELDS, changesQuery, type PastTensionView, type TensionChanges } from './tension.inputs.js';

/** What `actor.type` says of an actor deleted since: its type is not in the events. */
export const DELETED_ACTOR_TYPE = 'deleted';

const recorded = (e: StoredEvent) => ({ type: e.type, data: e.data, version: e.version, occurredAt: e.occurredAt }) as RecordedTensionEvent;

/** The stream's events up to `version`, oldest first (upcast on the way, as every read of events is). */
function eventsUpTo(em: EntityManager, id: string, version: number): Promise<StoredEvent[]> {
  return readStream(em, { type: TENSION_STREAM, id }, { before: version + 1 });
}

const gone = (id: string, version: number) =>
  refuse('not_found', `Tension ${id} did not exist at version ${version}: it had not been sensed yet, or had been discarded.`);

/**
 * The read shape of a folded past: the names its events recorded; the types, which never change, from the
 * actor and user rows (a name the events did not record is the current one).
 */
async function pastView(em: EntityManager, past: PastTension, at: StoredEvent): Promise<PastTensionView> {
  const s = past.state!;
  const { actor, user } = await loadParties(em, s.actorId, s.leadUserId);
  return {
    id: s.id,
    name: s.name,
    currentContext: s.currentContext,
    potentialFuture: s.potentialFuture,
    score: s.score,
    state: s.state,
    actorId: s.actorId,
    actor: { id: s.actorId, name: past.actorName ?? actor?.name ?? '', type: actor?.type ?? DELETED_ACTOR_TYPE },
    leadUserId: s.leadUserId,
    lead: s.leadUserId === null ? null : { id: s.leadUserId, name: past.leadName ?? user?.name ?? '', type: user?.type ?? 'human' },
    version: s.version,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    asOf: { version: at.version, occurredAt: at.occurredAt.toISOString() },
  };
}

/** `GET /tensions/:id?asOfVersion=N` / `?asOf=<time>`, after getTension has authorized and parsed. */
export async function readTensionAsOf(deps: Deps, id: string, at: { asOfVersion?: number; asOf?: string }): Promise<Result<PastTensionView>> {
  const em = reader(deps.orm);
  const stream = { type: TENSION_STREAM, id };
  const version = at.asOfVersion ?? (await streamVersionAt(em, stream, new Date(at.asOf!)));
  if (version === 0) {
    return (await streamHeadVersion(em, stream)) === 0 ? notFound(id) : refuse('not_found', `Tension ${id} had not been sensed yet at ${at.asOf}.`);
  }
  const events = await eventsUpTo(em, id, version);
  if (events.length === 0) return notFound(id);
  if (events.length < version) return refuse('not_found', `Tension ${id} has no version ${version} (its current version is ${events.length}).`);
  const past = foldPast(events.map(recorded));
  if (!past.state) return gone(id, version);
  return ok(await pastView(em, past, events[events.length - 1]));
}

type ChangeField = (typeof CHANGE_FIELDS)[number];

/** A field's value in a view, and what makes two values the same (actor and lead: the same id). */
const valueOf = (v: PastTensionView, f: ChangeField): unknown => v[f];
const keyOf = (value: unknown): unknown => (value !== null && typeof value === 'object' ? (value as { id: string }).id : value);

export async function getTensionChanges(deps: Deps, ctx: Ctx, rawId: string, query: unknown): Promise<Result<TensionChanges>> {
  const denied = authorize(ctx, 'tensions.changes');
  if (denied) return denied;
  const parsed = parseInput(changesQuery, query);
  if (!parsed.ok) return parsed;
  const id = idOf(rawId);
  if (!id) return notFound(rawId);
  const em = reader(deps.orm);
  const { from } = parsed.value;
  const head = parsed.value.to ?? (await streamHeadVersion(em, { type: TENSION_STREAM, id }));
  if (head === 0) return notFound(id);
  const events = await eventsUpTo(em, id, Math.max(from, head));
  if (events.length === 0) return notFound(id);
  if (events.length < Math.max(from, head)) {
    return refuse('not_found', `Tension ${id} has no version ${Math.max(from, head)} (its current version is ${events.length}).`);
  }

  // One fold, keeping the states at `from` and at `to` (and the one before the last, for a discarded tension's default `to`).
  let past = NOT_YET;
  let atFrom: PastTension | undefined;
  let beforeLast = NOT_YET;
  for (const e of events) {
    beforeLast = past;
    past = evolvePast(past, recorded(e));
    if (e.version === from) atFrom = past;
  }
  let to = head;
  let atTo = past;
  if (!atTo.state && parsed.value.to === undefined && beforeLast.state) {
    // discarded at its head: by default, compare up to the last version it existed at
    to = head - 1;
    atTo = beforeLast;
  }
  if (!atFrom?.state) return gone(id, from);
  if (!atTo.state) return gone(id, to);
  const a = await pastView(em, atFrom, events[from - 1]);
  const b = await pastView(em, atTo, events[to - 1]);
  return ok({
    from,
    to,
    changes: CHANGE_FIELDS.filter((f) => keyOf(valueOf(a, f)) !== keyOf(valueOf(b, f))).map((f) => ({ field: f, from: valueOf(a, f), to: valueOf(b, f) })),
  });
}
