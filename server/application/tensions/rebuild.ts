// Rebuilds the `tensions` projection from the tension streams with the same `evolve` the commands use,
// batch by batch, never stopping writers.
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ok, type Result } from '../../domain/errors.js';
import { evolve } from '../../domain/tension.evolve.js';
import type { RecordedTensionEvent, TensionState } from '../../domain/tension.types.js';
import { readStream, readStreamsInOrder, streamsMovedOn } from '../../persistence/event-store.js';
import {
  deleteOrphanTensionRows,
  deleteTensionRows,
  insertTensionStates,
  keyShareActors,
  loadTensionStates,
  updateTensionStates,
} from '../../persistence/tension-projection.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { parseInput } from '../validate.js';
import { TENSION_STREAM } from './command-path.js';
import { rebuildInput, type RebuildReport } from './tension.inputs.js';
import { reader, transact } from '../../persistence/transaction.js';
import { runsConnectionsInParallel } from '../../persistence/database.js';
import { recordAudit } from '../audit/audit.js';

const BATCH = 5_000;
const NIL = '00000000-0000-0000-0000-000000000000';

export interface RebuildOptions {
  /** called after every batch (the CLI prints it to stderr) */
  onProgress?: (progress: { streams: number; events: number }) => void;
}

function sameState(a: TensionState, b: TensionState): boolean {
  return (
    a.name === b.name &&
    a.currentContext === b.currentContext &&
    a.potentialFuture === b.potentialFuture &&
    a.score === b.score &&
    a.state === b.state &&
    a.actorId === b.actorId &&
    a.leadUserId === b.leadUserId &&
    a.version === b.version &&
    a.createdAt.getTime() === b.createdAt.getTime() &&
    a.updatedAt.getTime() === b.updatedAt.getTime()
  );
}

type Tally = Omit<RebuildReport, 'durationMs' | 'dryRun'>;
const emptyTally = (): Tally => ({ streams: 0, events: 0, inserted: 0, updated: 0, deleted: 0, unchanged: 0 });
const add = (t: Tally, d: Tally) => (Object.keys(t) as (keyof Tally)[]).forEach((k) => (t[k] += d[k]));

/** A stream folded so far: its state (null = never sensed or discarded) and the last version folded. */
interface Folded {
  state: TensionState | null;
  version: number;
}

const recorded = (e: { type: string; data: Record<string, unknown>; version: number; occurredAt: Date }) => e as RecordedTensionEvent;

/**
 * Reads every tension stream in (stream_id, version) order, `BATCH` events at a time, and hands each
 * batch's complete streams to `settle` (the last stream of a batch may continue in the next one). The
 * work overlaps, one batch each: while batch n settles (its own transaction), batch n+1 is folded and
 * batch n+2 read. Reads need no lock (settling catches up with whatever moved since); settles stay one
 * at a time and in order, and batches never share a stream, so they cannot wait on each other.
 * Without `overlap` (the embedded database, which runs one statement at a time anyway) each step waits
 * for the one before: overlapping there gains nothing and only takes turns from the writers.
 */
async function foldStreams(em: EntityManager, overlap: boolean, settle: (streams: Map<string, Folded>, events: number) => Promise<void>) {
  let pending = new Map<string, Folded>();
  let current = null as { id: string; folded: Folded } | null;
  let events = 0;
  const read = (after: { streamId: string; version: number }) => readStreamsInOrder(em, TENSION_STREAM, after, BATCH);
  let next = read({ streamId: NIL, version: 0 });
  let settling: Promise<void> = Promise.resolve();
  try {
    for (;;) {
      const batch = await next;
      const last = batch.length < BATCH;
      const readNext = () => {
        const tail = batch[batch.length - 1];
        next = read({ streamId: tail.streamId, version: tail.version });
        next.catch(() => undefined); // awaited in the loop's next turn
      };
      if (!last && overlap) readNext();
      for (const e of batch) {
        if (current?.id !== e.streamId) {
          if (current) pending.set(current.id, current.folded);
          current = { id: e.streamId, folded: { state: null, version: 0 } };
        }
        current.folded.state = evolve(current.folded.state, recorded(e));
        current.folded.version = e.version;
        events++;
      }
      const open = current;
      if (last && open) pending.set(open.id, open.folded);
      await settling;
      settling = settle(pending, events);
      // Awaited in the loop's next turn or below; a rejection before then must not go unhandled.
      settling.catch(() => undefined);
      if (!overlap) await settling;
      pending = new Map();
      events = 0;
      if (last) return await settling;
      if (!overlap) readNext();
    }
  } catch (err) {
    // A failed read must not leave a settle running on its own after the rebuild has answered.
    await settling.catch(() => undefined);
    throw err;
  }
}

/** Compares folded streams with their rows; what a write would change, by kind. */
function diff(folded: Map<string, Folded>, rows: Map<string, TensionState>) {
  const inserts: TensionState[] = [];
  const updates: TensionState[] = [];
  const deletes: string[] = [];
  let unchanged = 0;
  for (const [id, { state }] of folded) {
    const row = rows.get(id);
    if (state === null) {
      if (row) deletes.push(id);
    } else if (!row) inserts.push(state);
    else if (!sameState(row, state)) updates.push(state);
    else unchanged++;
  }
  return { inserts, updates, deletes, unchanged };
}

/**
 * Brings the rows of `folded` (streams read outside any lock) to their streams' heads, in one short
 * transaction that locks only those rows, so commands on every other tension go on meanwhile.
 *
 * Under the row locks no command can append to these streams (each append updates or deletes its row
 * in the same transaction, after locking it), so what is read here is final until commit: streams that
 * moved on since they were read (an event after the last one folded exists) are folded further. A row
 * that does not exist cannot be appended to (a command on it is 404), so inserting it is safe too.
 * Locks are taken in the commands' order (actor, then tension row) and in id order, so a rebuild
 * deadlocks with neither.
 */
async function settleBatch(em: EntityManager, folded: Map<string, Folded>): Promise<Tally> {
  const ids = [...folded.keys()].sort();
  return em.transactional(async (tx) => {
    await keyShareActors(tx, [...new Set([...folded.values()].flatMap((f) => (f.state ? [f.state.actorId] : [])))]);
    const rows = await loadTensionStates(tx, ids, { lock: true });
    const moved = await streamsMovedOn(tx, TENSION_STREAM, new Map(ids.map((id) => [id, folded.get(id)!.version])));
    let events = 0;
    for (const id of moved) {
      const f = folded.get(id)!;
      for (const e of await readStream(tx, { type: TENSION_STREAM, id }, { after: f.version })) {
        f.state = evolve(f.state, recorded(e));
        f.version = e.version;
        events++;
      }
    }
    const d = diff(folded, rows);
    await insertTensionStates(tx, d.inserts);
    await updateTensionStates(tx, d.updates);
    await deleteTensionRows(tx, d.deletes);
    return { streams: folded.size, events, inserted: d.inserts.length, updated: d.updates.length, deleted: d.deletes.length, unchanged: d.unchanged };
  });
}

const DEADLOCK = '40P01';

/** A batch that lost a deadlock (a foreign-key lock taken after a catch-up) is simply settled again. */
async function settleWithRetry(em: EntityManager, folded: Map<string, Folded>): Promise<Tally> {
  const snapshot = new Map([...folded].map(([id, f]) => [id, { ...f }]));
  for (let attempt = 1; ; attempt++) {
    try {
      return await settleBatch(em, new Map([...snapshot].map(([id, f]) => [id, { ...f }])));
    } catch (err) {
      if (attempt >= 5 || (err as { code?: string }).code !== DEADLOCK) throw err;
    }
  }
}

export async function rebuildTensionProjection(deps: Deps, ctx: Ctx, input: unknown, opts: RebuildOptions = {}): Promise<Result<RebuildReport>> {
  const denied = authorize(ctx, 'projections.rebuild');
  if (denied) return denied;
  const parsed = parseInput(rebuildInput, input);
  if (!parsed.ok) return parsed;
  const { dryRun } = parsed.value;
  const started = performance.now();
  const em = reader(deps.orm);
  const t = emptyTally();
  const progress = () => opts.onProgress?.({ streams: t.streams, events: t.events });

  if (dryRun) {
    // Writes nothing and locks nothing: one consistent snapshot of streams and rows is enough.
    await em.transactional(
      async (tx) => {
        await foldStreams(tx, false, async (folded, events) => {
          const d = diff(folded, await loadTensionStates(tx, [...folded.keys()], { lock: false }));
          add(t, { streams: folded.size, events, inserted: d.inserts.length, updated: d.updates.length, deleted: d.deletes.length, unchanged: d.unchanged });
          progress();
        });
        // Rows with no stream at all: none can gain one (a command on such a row conflicts at its append).
        t.deleted += await deleteOrphanTensionRows(tx, TENSION_STREAM, true);
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ },
    );
  } else {
    await foldStreams(em, runsConnectionsInParallel(deps.database), async (folded, events) => {
      if (folded.size) add(t, await settleWithRetry(em, folded));
      t.events += events;
      progress();
    });
    t.deleted += await deleteOrphanTensionRows(em, TENSION_STREAM, false);
  }
  const report = { ...t, durationMs: Math.round(performance.now() - started), dryRun };
  // The rebuild is many short transactions (writers never stop); its entry follows the last one. A dry run changes nothing and is not recorded.
  if (!dryRun)
    await transact(deps.orm, async (tx) =>
      ok(
        await recordAudit(deps, tx, ctx, {
          action: 'projections.rebuilt',
          target: { type: 'projection', id: null, label: 'tensions' },
          changes: { report: { from: null, to: report } },
        }),
      ),
    );
  return ok(report);
}
