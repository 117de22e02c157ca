// The one path every tension command takes: load the projection row → check the client's expectedVersion →
// decide → one statement that writes the projection row conditional on the version read, and the events.
import { shareActor, shareUser } from '../../persistence/references.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ok, refuse, VersionConflictError, type Result } from '../../domain/errors.js';
import { decide } from '../../domain/tension.decide.js';
import { evolve } from '../../domain/tension.evolve.js';
import { TENSION_SCHEMA_VERSIONS } from '../../domain/tension.upcast.js';
import type { TensionCommand, TensionState } from '../../domain/tension.types.js';
import { streamHeadVersion, takeFeedLock, type EventMetadata } from '../../persistence/event-store.js';
import { currentTensionVersion, loadTensionRow, rowToState, rowToView, writeTensionCommand, type TensionRow } from '../../persistence/tension-projection.js';
import { reader, statementReader } from '../../persistence/transaction.js';
import type { Ctx, Deps } from '../context.js';
import { inSpan } from '../../tracing.js';
import { feedCommitted } from '../events/feed-hub.js';
import { toHistoryEntry } from './history-entry.js';
import type { CommandResult } from './tension.inputs.js';
import { versionConflict } from '../versions.js';

export const TENSION_STREAM = 'tension';

export function eventMetadata(ctx: Ctx): EventMetadata {
  return {
    actorKind: ctx.caller.kind,
    userId: ctx.caller.userId,
    userName: ctx.caller.userName,
    apiKeyId: ctx.caller.apiKey?.id ?? null,
    apiKeyName: ctx.caller.apiKey?.name ?? null,
    via: ctx.via,
    requestId: ctx.requestId,
    correlationId: ctx.correlationId ?? null,
    causationId: ctx.causationId ?? null,
    // SPEC §13: a change made through an OAuth token names the grant (only then: older events keep their shape)
    ...(ctx.caller.oauthGrant ? { oauthGrantId: ctx.caller.oauthGrant.id } : {}),
  };
}

export function notFound(id: string) {
  return refuse('not_found', `No tension ${id}.`);
}

/** Builds the command from the loaded row, looking up what it references with `tx`. */
export interface BuildCommand {
  (tx: EntityManager, row: TensionRow | null, state: TensionState | null): Promise<Result<TensionCommand>>;
  /** set by `fromInput`: the build reads nothing but its input and the clock, so its command needs no transaction */
  readonly standalone?: true;
}

/** A build that needs only its input and the clock (rename, rescore, the lifecycle moves, discard). */
export function fromInput(make: () => TensionCommand): BuildCommand {
  return Object.assign(() => Promise.resolve(ok(make())), { standalone: true as const });
}

export interface CommandRequest {
  id: string;
  expectedVersion: number | undefined;
  /** sense creates the stream; every other command needs a live tension */
  creates?: boolean;
  build: BuildCommand;
}

/** Runs one command with `tx`: the caller's transaction (actor deletion runs many in one), or none for a `fromInput` build. */
export async function runTensionCommand(tx: EntityManager, deps: Deps, ctx: Ctx, req: CommandRequest): Promise<Result<CommandResult>> {
  const row = await loadTensionRow(tx, req.id);
  if (!row && !req.creates) return notFound(req.id);
  const state = row ? rowToState(row) : null;
  const head = state?.version ?? 0;
  if (req.expectedVersion !== undefined && req.expectedVersion !== head) return versionConflict(head, req.expectedVersion);

  const command = await req.build(tx, row, state);
  if (!command.ok) return command;
  const decision = decide(command.value, state);
  if (!decision.ok) return decision;
  const events = decision.value;
  if (events.length === 0) return ok({ tension: row ? rowToView(row) : null, event: null });

  // One statement writes the projection row, conditional on the version we read, and the events after
  // it: the tension's row lock is what a concurrent command on it queues on (and then finds the version
  // moved, or the row gone). Nothing else is shared with commands on other tensions.
  const at = command.value.at;
  const next = events.reduce<TensionState | null>((s, e, i) => evolve(s, { ...e, version: head + i + 1, occurredAt: at }), state);
  const stream = { type: TENSION_STREAM, id: req.id };
  const writeStarted = process.hrtime.bigint();
  const written = await writeTensionCommand(tx, {
    stream,
    head,
    next,
    events: events.map((e) => ({ ...e, schemaVersion: TENSION_SCHEMA_VERSIONS[e.type] })),
    metadata: eventMetadata(ctx),
    opts: { newId: deps.newId, occurredAt: at },
  });
  if (written === 'stream_ahead') {
    // A version already in the stream (a projection behind its stream): the statement wrote nothing.
    throw new VersionConflictError(req.id, await streamHeadVersion(tx, stream), head);
  }
  if (!written) {
    // Nothing written. Gone since we read it (discarded, or its actor deleted): 404 like any discarded tension.
    const current = await currentTensionVersion(tx, req.id);
    if (current === 0 && !req.creates) return notFound(req.id);
    throw new VersionConflictError(req.id, current, head);
  }
  const tension = written.row === 'deleted' ? null : rowToView(written.row);
  const stored = written.events;
  deps.metrics.eventAppend(Number(process.hrtime.bigint() - writeStarted) / 1e9);
  return ok({ tension, event: toHistoryEntry(stored[stored.length - 1]) });
}

/**
 * A tension command as operators see it: a span (`tension.rescore`) around everything it does, from the
 * permission check to the commit, and its outcome counted (appended, noop, or refused with the code).
 */
export function observedCommand(deps: Deps, op: string, run: () => Promise<Result<CommandResult>>): Promise<Result<CommandResult>> {
  const name = op.replace(/^tensions\./, '');
  return inSpan(`tension.${name}`, { 'market.command': name }, async (span) => {
    const result = await run();
    const outcome = !result.ok ? 'refused' : result.value.event ? 'appended' : 'noop';
    span.setAttribute('market.outcome', result.ok ? outcome : `refused:${result.code}`);
    deps.metrics.tensionCommand(name, outcome, result.ok ? '' : result.code);
    return result;
  });
}

/**
 * One command; a concurrent append surfaces as 409 `version_conflict`, never retried. A command that
 * references nothing (`fromInput`) runs without a transaction: its one write statement is atomic and
 * conditional on the version it read, which is all a transaction around it would prove, so it costs
 * three round trips (key, read, write) instead of five. A command that looks up an actor or a lead holds
 * those rows `for share` until its write commits, so it runs in one transaction.
 */
export async function executeTensionCommand(deps: Deps, ctx: Ctx, req: CommandRequest): Promise<Result<CommandResult>> {
  try {
    const result = req.build.standalone
      ? // statements only (the read, the write): no EntityManager of its own per command
        await runTensionCommand(statementReader(deps), deps, ctx, req)
      : await reader(deps.orm).transactional(async (tx) => {
          // before the lookups' row locks give the transaction its id (see takeFeedLock)
          await takeFeedLock(tx);
          return runTensionCommand(tx, deps, ctx, req);
        });
    if (result.ok && result.value.event) feedCommitted(deps);
    return result;
  } catch (err) {
    if (err instanceof VersionConflictError) return versionConflict(err.currentVersion, req.expectedVersion);
    throw err;
  }
}

// ---- lookups of what a command references, inside its transaction ----------------------------

export async function lookupActor(tx: EntityManager, actorId: string): Promise<Result<{ id: string; name: string; type: string }>> {
  const actor = await shareActor(tx, actorId);
  return actor ? ok(actor) : refuse('actor_not_found', `No actor ${actorId}.`);
}

export async function lookupLead(tx: EntityManager, userId: string): Promise<Result<{ id: string; name: string }>> {
  const user = await shareUser(tx, userId);
  if (!user) return refuse('user_not_found', `No user ${userId}.`);
  if (user.status !== 'active') return refuse('not_applicable', `User ${userId} is deactivated and cannot lead a tension.`);
  return ok({ id: user.id, name: user.name });
}
