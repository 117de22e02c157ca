// Reading the past (SPEC §15): a tension as it was at a version or a moment, and what changed between two
// versions. Both fold the stream with `evolve`, the fold the projection and the rebuild use: the past is
// never worked out a second way.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ok, refuse, type Result } from '../../domain/errors.js';
import { evolvePast, NOT_YET } from '../../domain/tension.past.js';
import type { RecordedTensionEvent } from '../../domain/tension.types.js';
import { readStreamForFold, streamHeadVersion, streamVersionAt, type ReplayedEvent } from '../../persistence/event-store.js';
import { nearestSnapshot, saveSnapshots, type PastPoint } from '../../persistence/tension-snapshots.js';
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

const recorded = (e: ReplayedEvent) => ({ type: e.type, data: e.data, version: e.version, occurredAt: e.occurredAt }) as RecordedTensionEvent;

/** Every how many versions an as-of read leaves a snapshot of the fold behind (Deps.pastSnapshotEvery; 0: none). */
export const PAST_SNAPSHOT_EVERY = 100;

const gone = (id: string, version: number) =>
  refuse('not_found', `Tension ${id} did not exist at version ${version}: it had not been sensed yet, or had been discarded.`);
const noVersion = (id: string, version: number, head: number) =>
  refuse('not_found', `Tension ${id} has no version ${version} (its current version is ${head}).`);

/**
 * The stream folded up to `version`: from the nearest snapshot at or below it (when snapshots are on) plus
 * the events after it, read in one statement (without their metadata) and upcast as every read is. The fold passes on snapshots of
 * the versions it crosses that are multiples of the interval, so the next read of a long stream folds at
 * most that many events. Answers `head` instead when the stream is shorter (0: no stream at all).
 */
async function pastAt(deps: Deps, em: EntityManager, id: string, version: number): Promise<PastPoint | { head: number }> {
  const every = deps.pastSnapshotEvery ?? PAST_SNAPSHOT_EVERY;
  const snap = every > 0 ? await nearestSnapshot(em, id, version) : undefined;
  const events = await readStreamForFold(em, { type: TENSION_STREAM, id }, snap?.version ?? 0, version + 1);
  const head = (snap?.version ?? 0) + events.length;
  if (head < version) return { head };
  let point: PastPoint = snap ?? { version: 0, occurredAt: new Date(0), past: NOT_YET };
  const crossed: PastPoint[] = [];
  for (const e of events) {
    point = { version: e.version, occurredAt: e.occurredAt, past: evolvePast(point.past, recorded(e)) };
    if (every > 0 && e.version % every === 0) crossed.push(point);
  }
  if (crossed.length > 0) await saveSnapshots(em, id, crossed);
  return point;
}

/**
 * The read shape of a folded past: the names its events recorded; the types, which never change, from the
 * actor and user rows (a name the events did not record is the current one).
 */
async function pastView(em: EntityManager, at: PastPoint): Promise<PastTensionView> {
  const { past } = at;
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
  const point = await pastAt(deps, em, id, version);
  if ('head' in point) return point.head === 0 ? notFound(id) : noVersion(id, version, point.head);
  if (!point.past.state) return gone(id, version);
  return ok(await pastView(em, point));
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
  // The later of the two first: it says whether the stream reaches both.
  const last = await pastAt(deps, em, id, Math.max(from, head));
  if ('head' in last) return last.head === 0 ? notFound(id) : noVersion(id, Math.max(from, head), last.head);
  const atFrom = from === last.version ? last : ((await pastAt(deps, em, id, from)) as PastPoint);
  let atTo = head === last.version ? last : ((await pastAt(deps, em, id, head)) as PastPoint);
  let to = head;
  if (!atTo.past.state && parsed.value.to === undefined && head > 1) {
    // discarded at its head: by default, compare up to the last version it existed at
    const beforeLast = (await pastAt(deps, em, id, head - 1)) as PastPoint;
    if (beforeLast.past.state) {
      to = head - 1;
      atTo = beforeLast;
    }
  }
  if (!atFrom.past.state) return gone(id, from);
  if (!atTo.past.state) return gone(id, to);
  const a = await pastView(em, atFrom);
  const b = await pastView(em, atTo);
  return ok({
    from,
    to,
    changes: CHANGE_FIELDS.filter((f) => keyOf(valueOf(a, f)) !== keyOf(valueOf(b, f))).map((f) => ({ field: f, from: valueOf(a, f), to: valueOf(b, f) })),
  });
}
