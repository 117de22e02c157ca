// Rebuilds the `tensions` projection from the tension streams with the same `evolve` the commands use.
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ok, type Result } from '../../domain/errors.js';
import { evolve } from '../../domain/tension.evolve.js';
import type { RecordedTensionEvent, TensionState } from '../../domain/tension.types.js';
import { rowToState, saveTensionStates, type TensionRow } from '../../persistence/tension-projection.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { parseInput } from '../validate.js';
import { TENSION_STREAM } from './command-path.js';
import { rebuildInput, type RebuildReport } from './tension.inputs.js';

const BATCH = 5_000;

export interface RebuildOptions {
  /** called after every batch (the CLI prints it to stderr) */
  onProgress?: (progress: { streams: number; events: number }) => void;
}

function sameState(a: TensionState, b: TensionState): boolean {
  return (
    a.name === b.name && a.currentContext === b.currentContext && a.potentialFuture === b.potentialFuture && a.score === b.score &&
    a.state === b.state && a.actorId === b.actorId && a.leadUserId === b.leadUserId && a.version === b.version &&
    a.createdAt.getTime() === b.createdAt.getTime() && a.updatedAt.getTime() === b.updatedAt.getTime()
  );
}

interface Tally {
  streams: number;
  events: number;
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

/** Compares folded streams with their rows and writes the difference (unless dry run). */
async function reconcile(tx: EntityManager, folded: Map<string, TensionState | null>, tally: Tally, dryRun: boolean) {
  if (folded.size === 0) return;
  const ids = [...folded.keys()];
  const rows: TensionRow[] = await tx.execute(
    `select t.*, null as actor_name, null as actor_type, null as lead_name, null as lead_type from tensions t where t.id = any(?::uuid[])`,
    [`{${ids.join(',')}}`],
  );
  const existing = new Map(rows.map((r) => [r.id, rowToState(r)]));
  const upserts: TensionState[] = [];
  const deletes: string[] = [];
  for (const [id, state] of folded) {
    const row = existing.get(id);
    if (state === null) {
      if (row) deletes.push(id);
    } else if (!row) {
      tally.inserted++;
      upserts.push(state);
    } else if (!sameState(row, state)) {
      tally.updated++;
      upserts.push(state);
    } else tally.unchanged++;
  }
  tally.deleted += deletes.length;
  if (dryRun) return;
  await saveTensionStates(tx, upserts);
  if (deletes.length) await tx.execute('delete from tensions where id = any(?::uuid[])', [`{${deletes.join(',')}}`]);
}

export async function rebuildTensionProjection(
  deps: Deps,
  ctx: Ctx,
  input: unknown,
  opts: RebuildOptions = {},
): Promise<Result<RebuildReport>> {
  const denied = authorize(ctx, 'projections.rebuild');
  if (denied) return denied;
  const parsed = parseInput(rebuildInput, input);
  if (!parsed.ok) return parsed;
  const { dryRun } = parsed.value;
  const started = performance.now();
  const em = deps.orm.em.fork() as EntityManager;

  const tally = await em.transactional(
    async (tx) => {
      if (!dryRun) {
        // Keep writers out of the table (readers go on seeing the old rows until we commit), then freeze
        // appends: the order commands take them in (tension row → head), so neither waits on the other.
        await tx.execute('lock table tensions in exclusive mode');
        await tx.execute('select position from domain_event_head for update');
      }
      const t: Tally = { streams: 0, events: 0, inserted: 0, updated: 0, deleted: 0, unchanged: 0 };
      let folded = new Map<string, TensionState | null>();
      let current = null as { id: string; state: TensionState | null } | null;
      let after = { streamId: '00000000-0000-0000-0000-000000000000', version: 0 };
      for (;;) {
        const batch: { stream_id: string; version: number; type: string; data: Record<string, unknown>; occurred_at: Date | string }[] =
          await tx.execute(
            `select stream_id, version, type, data, occurred_at from domain_events
             where stream_type = ? and (stream_id, version) > (?::uuid, ?::int)
             order by stream_id, version limit ?`,
            [TENSION_STREAM, after.streamId, after.version, BATCH],
          );
        for (const e of batch) {
          if (current?.id !== e.stream_id) {
            if (current) folded.set(current.id, current.state);
            current = { id: e.stream_id, state: null };
            t.streams++;
          }
          const event = { type: e.type, data: e.data, version: e.version, occurredAt: new Date(e.occurred_at) } as RecordedTensionEvent;
          current.state = evolve(current.state, event);
          t.events++;
        }
        // Everything but the last (possibly unfinished) stream is complete: reconcile it now.
        await reconcile(tx, folded, t, dryRun);
        folded = new Map();
        opts.onProgress?.({ streams: t.streams, events: t.events });
        if (batch.length < BATCH) break;
        const last = batch[batch.length - 1];
        after = { streamId: last.stream_id, version: last.version };
      }
      const lastStream = current as { id: string; state: TensionState | null } | null;
      if (lastStream) await reconcile(tx, new Map([[lastStream.id, lastStream.state]]), t, dryRun);
      // Rows with no stream behind them at all.
      const orphans: { id: string }[] = await tx.execute(
        `select t.id from tensions t where not exists
           (select 1 from domain_events e where e.stream_type = ? and e.stream_id = t.id)`,
        [TENSION_STREAM],
      );
      t.deleted += orphans.length;
      if (!dryRun && orphans.length) {
        await tx.execute('delete from tensions where id = any(?::uuid[])', [`{${orphans.map((o) => o.id).join(',')}}`]);
      }
      return t;
    },
    // A dry run writes nothing and locks nothing: one consistent snapshot is enough.
    dryRun ? { isolationLevel: IsolationLevel.REPEATABLE_READ } : {},
  );
  return ok({ ...tally, durationMs: Math.round(performance.now() - started), dryRun });
}
