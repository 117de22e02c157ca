// Open streams follow their caller's rights (SPEC §10) and count against the user's limit (SPEC §7).
//
// Every SSE stream, GraphQL subscription and long poll holds a guard. A guard hands a batch of events on
// only after a check of its credential that *started after the batch was read* has passed: the check then
// sees every revocation committed before those events were, so nothing written after a revocation is
// delivered. Checks run in rounds, one statement per round for every credential streaming on the instance
// (not one per stream or per key), when a batch waits and at least every RIGHTS_CHECK_MS, so a stream with
// no traffic ends too. A revoked or expired key, a deactivated user, an ended session or a lost permission
// ends the stream within about RIGHTS_CHECK_MS plus one query.
//
// The limit of open streams per user is counted here, per instance (docs/security.md says so).
import { refuse, type Refusal, type Result, ok } from '../../domain/errors.js';
import { hasPermission, narrowGrants, type Permission } from '../../domain/permissions.js';
import { liveCredentials, type LiveCredential } from '../../persistence/stream-rights.js';
import { reader } from '../../persistence/transaction.js';
import type { Caller, Deps } from '../context.js';
import type { FeedEvent } from './feed-hub.js';

/** SPEC §7: open streams and long polls one user may hold at once (per instance). */
export const MAX_STREAMS_PER_USER = 20;
/** How often open streams' credentials are checked when no batch asks sooner. */
export const RIGHTS_CHECK_MS = 500;
/** What a 429 for one stream too many suggests: streams end when their clients close them. */
const STREAM_RETRY_AFTER_S = 5;

type GuardDeps = Pick<Deps, 'orm' | 'clock' | 'logger' | 'metrics'>;

export interface StreamGuard {
  /** Hands `batch` to the stream's `deliver` once a check started after this call has passed; batches keep their order. */
  push(batch: FeedEvent[]): void;
  /** A check started after this call: null while the caller still may, else the refusal (the guard is then revoked). */
  verify(): Promise<Refusal | null>;
  /** The stream ended: its slot is free, nothing more is delivered. Idempotent. */
  close(): void;
}

export interface GuardOptions {
  /** every permission the stream needs, checked at each round */
  needs: readonly Permission[];
  /** a checked batch, in order */
  deliver?(batch: FeedEvent[]): void;
  /** the caller lost the right to this stream: end it (runs once; nothing is delivered after it) */
  revoked(refusal: Refusal): void;
  /** more than MAX_PENDING_BATCHES wait for a check (the checks cannot keep up): drop the stream, as a slow reader */
  overflow(): void;
}

/** Batches one stream may hold while its check is under way; past that it is dropped (it resumes from its cursor). */
const MAX_PENDING_BATCHES = 100;

interface Waiter {
  need: number;
  resolve(verdict: Refusal | null): void;
}

class Guard implements StreamGuard {
  closed = false;
  private readonly pending: FeedEvent[][] = [];
  private pushed = 0;
  private delivered = 0;
  constructor(
    private readonly watch: RightsWatch,
    readonly caller: Caller,
    readonly credential: string | null,
    private readonly opts: GuardOptions,
  ) {}

  push(batch: FeedEvent[]): void {
    if (this.closed) return;
    if (this.pending.length >= MAX_PENDING_BATCHES) {
      this.close();
      this.opts.overflow();
      return;
    }
    this.pending.push(batch);
    const upTo = ++this.pushed;
    void this.verify().then((refusal) => {
      if (refusal || this.closed) return;
      while (this.delivered < upTo && this.pending.length && !this.closed) {
        this.delivered++;
        this.opts.deliver?.(this.pending.shift()!);
      }
    });
  }

  verify(): Promise<Refusal | null> {
    if (this.closed) return Promise.resolve(this.refusal ?? null);
    if (this.credential === null) return Promise.resolve(null);
    return this.watch.fresh(this);
  }

  /** what revoked the guard, if anything did */
  refusal: Refusal | undefined;

  /** A round's answer for this guard's credential (undefined: the credential no longer authenticates). */
  judge(row: LiveCredential | undefined): Refusal | null {
    if (!row)
      return refuse(
        'unauthenticated',
        'The credential this stream was opened with no longer authenticates (revoked, expired, signed out or its user deactivated).',
      );
    const grants = narrowGrants(row.grants ?? [], row.permissions);
    for (const p of this.opts.needs) {
      if (!hasPermission(grants, p)) return refuse('forbidden', `This stream needs the permission ${p}.`, { missingPermission: p });
    }
    return null;
  }

  revoke(refusal: Refusal): void {
    if (this.closed) return;
    this.refusal = refusal;
    this.close();
    this.opts.revoked(refusal);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending.length = 0;
    this.watch.release(this);
  }
}

/** The instance's credential checks and stream counts for one database. */
export class RightsWatch {
  private readonly guards = new Set<Guard>();
  private readonly perUser = new Map<string, number>();
  private waiters = new Map<Guard, Waiter[]>();
  private started = 0;
  private running = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: GuardDeps) {}

  open(caller: Caller, opts: GuardOptions): Result<StreamGuard> {
    const user = caller.userId ?? 'system';
    const open = this.perUser.get(user) ?? 0;
    if (open >= MAX_STREAMS_PER_USER) {
      this.deps.metrics.rateLimited('stream');
      return refuse('rate_limited', `At most ${MAX_STREAMS_PER_USER} streams and long polls may be open at once for one user; close one first.`, {
        retryAfterSeconds: STREAM_RETRY_AFTER_S,
      });
    }
    this.perUser.set(user, open + 1);
    const credential =
      caller.authenticatedBy === 'api_key' && caller.apiKey
        ? `k:${caller.apiKey.id}`
        : caller.authenticatedBy === 'session' && caller.sessionId
          ? `s:${caller.sessionId}`
          : null;
    const guard = new Guard(this, caller, credential, opts);
    if (credential !== null) {
      this.guards.add(guard);
      if (!this.timer) {
        this.timer = setInterval(() => this.kick(), RIGHTS_CHECK_MS);
        this.timer.unref();
      }
    }
    return ok(guard);
  }

  release(guard: Guard): void {
    const user = guard.caller.userId ?? 'system';
    const open = (this.perUser.get(user) ?? 1) - 1;
    if (open > 0) this.perUser.set(user, open);
    else this.perUser.delete(user);
    this.guards.delete(guard);
    const waiting = this.waiters.get(guard);
    this.waiters.delete(guard);
    // a closed guard's pending checks answer with what revoked it (or nothing: the stream is gone anyway)
    for (const w of waiting ?? []) w.resolve(guard.refusal ?? null);
    if (this.guards.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** The verdict of the first round that starts after this call. */
  fresh(guard: Guard): Promise<Refusal | null> {
    return new Promise((resolve) => {
      const list = this.waiters.get(guard) ?? [];
      list.push({ need: this.started + 1, resolve });
      this.waiters.set(guard, list);
      this.kick();
    });
  }

  private kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.guards.size === 0) return;
    void this.round();
  }

  private async round(): Promise<void> {
    this.running = true;
    this.again = false;
    const guards = [...this.guards];
    const keys = new Set<string>();
    const sessions = new Map<string, string>();
    for (const g of guards) {
      if (g.credential!.startsWith('k:')) keys.add(g.caller.apiKey!.id);
      else sessions.set(g.caller.sessionId!, g.caller.userId!);
    }
    // Counted before the statement is sent: a waiter that asked before this line needs a later round.
    const n = ++this.started;
    let rows: Map<string, LiveCredential> | undefined;
    try {
      const found = await liveCredentials(
        reader(this.deps.orm),
        [...keys],
        [...sessions].map(([id, userId]) => ({ id, userId })),
        this.deps.clock(),
      );
      rows = new Map(found.map((r) => [`${r.kind}:${r.id}`, r]));
    } catch (err) {
      // Nothing is decided: waiting batches stay held (never delivered unchecked) until a round succeeds.
      this.deps.logger.warn({ err }, 'streams: could not check the rights of open streams; retried at the next round');
    }
    this.running = false;
    if (rows) {
      for (const g of guards) {
        if (g.closed) continue;
        const refusal = g.judge(rows.get(g.credential!));
        const waiting = this.waiters.get(g);
        if (waiting) {
          const ready = waiting.filter((w) => w.need <= n);
          const rest = waiting.filter((w) => w.need > n);
          if (rest.length) this.waiters.set(g, rest);
          else this.waiters.delete(g);
          if (refusal) g.revoke(refusal);
          for (const w of ready) w.resolve(refusal);
        } else if (refusal) g.revoke(refusal);
      }
      if (this.again || this.waiters.size > 0) this.kick();
    }
  }
}

/**
 * Opens a stream's guard for `caller`: 429 `rate_limited` when the user already holds MAX_STREAMS_PER_USER.
 * The guard must be closed when the stream ends, however it ends.
 */
export function openStreamGuard(deps: Pick<Deps, 'streamGuards'>, caller: Caller, opts: GuardOptions): Result<StreamGuard> {
  return deps.streamGuards.open(caller, opts);
}
