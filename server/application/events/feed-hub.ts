// One feed reader per instance: it reads the global feed when a commit is announced (by this instance
// directly, by others through LISTEN; without LISTEN, at a short polling interval while anyone follows,
// and with it, slowly, for writers that announce nothing) and fans the events out in process to every
// follower (SSE streams, GraphQL subscriptions, long polls), each with its own filters and cursor.
// A follower behind the reader catches up with reads of its own, then joins; no follower holds a
// database connection while it waits.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.js';
import type { Deps } from '../context.js';
import { compareFeedCursors, readFeed, type FeedCursor, type FeedFilter, type StoredEvent } from '../../persistence/event-store.js';
import { CommitAnnouncer, listenForCommits, type FeedListener } from '../../persistence/feed-listener.js';
import { afterCommit } from '../../persistence/transaction.js';

export type FeedEvent = StoredEvent & { transactionId: string };

export interface FollowOptions {
  after: FeedCursor;
  filter: FeedFilter;
  /** events in feed order, each after the follower's cursor and matching its filter; `next` is its new cursor */
  onEvents(events: FeedEvent[], next: FeedCursor): void;
  /** the hub is closing (shutdown) or a catch-up read failed */
  onEnd?(err?: unknown): void;
}

export interface Following {
  stop(): void;
}

export interface HubOptions {
  /** how often to read while followed and no LISTEN connection is up (embedded database) */
  pollMs?: number;
  /** counts every feed read, by who made it (tests prove the sharing with it) */
  onRead?: (reader: 'hub' | 'catchup') => void;
  /** a fixed shortest time between two hub reads while commits keep coming (default: by followers, see MIN_BUSY_GAP_MS) */
  busyGapMs?: number;
}

const PAGE = 1000;
/** While LISTEN is up, still read this often: a writer that announces nothing (another tool) is seen all the same. */
const FALLBACK_POLL_MS = 1_000;
const CATCH_UP_PAGE = 500;
/** After a wake-up that showed nothing (a commit still above an older in-flight transaction), re-read this soon, then slower. */
const RETRY_FIRST_MS = 25;
const RETRY_MAX_MS = 1_000;
const RETRY_FOR_MS = 30_000;
/**
 * Under a steady stream of commits the hub reads in batches: after a read, the next waits out a gap.
 * Reading at every commit meant one small page, and one socket write per follower, for every event or
 * two; with 100 SSE followers that halved the service's write throughput (bench: subscriber cost 0.47).
 * The gap grows with the followers, so that the fan-out stays near FOLLOWER_WRITES_PER_S socket writes
 * a second however many follow, between MIN_BUSY_GAP_MS (few followers: little lag) and MAX_BUSY_GAP_MS
 * (the lag's bound: at 100 followers, p50 61–68 / p99 120–160 ms in the bench, for about 10 % of the
 * rescore throughput, bench/README.md). A longer gap no longer buys throughput: 150 ms gave the same cost
 * for 60 ms more lag (A / B, 2026-11-25). A wake-up after a quiet moment still reads at once.
 */
const MIN_BUSY_GAP_MS = 25;
const MAX_BUSY_GAP_MS = 100;
const FOLLOWER_WRITES_PER_S = 1_000;

interface Follower extends FollowOptions {
  cursor: FeedCursor;
  live: boolean;
  stopped: boolean;
}

export function matches(event: FeedEvent, filter: FeedFilter): boolean {
  if (filter.types?.length && !filter.types.includes(event.type)) return false;
  if (filter.streamId && event.streamId !== filter.streamId) return false;
  return true;
}

const cursorOf = (e: FeedEvent): FeedCursor => ({ transactionId: e.transactionId, position: e.position });

export class FeedHub {
  private cursor: FeedCursor | undefined;
  private readonly followers = new Set<Follower>();
  private reading = false;
  private again = false;
  private closed = false;
  private retryUntil = 0;
  private retryMs = RETRY_FIRST_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private lastReadAt = 0;
  private gapTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly listener: FeedListener;
  private readonly pollMs: number;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger | undefined,
    private readonly opts: HubOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 100;
    this.listener = listenForCommits(orm, () => this.notified(), logger);
  }

  /** Followers right now (live or catching up). */
  get size(): number {
    return this.followers.size;
  }

  /** Each follower's filter right now, and whether it is live (caught up, waiting for the fan-out): what tests wait on. */
  followersNow(): { filter: FeedFilter; live: boolean }[] {
    return [...this.followers].map((f) => ({ filter: f.filter, live: f.live }));
  }

  follow(opts: FollowOptions): Following {
    const f: Follower = { ...opts, cursor: opts.after, live: false, stopped: false };
    if (this.closed) {
      queueMicrotask(() => opts.onEnd?.());
      return { stop: () => undefined };
    }
    this.followers.add(f);
    this.ensurePolling();
    void this.catchUp(f);
    return {
      stop: () => {
        f.stopped = true;
        this.followers.delete(f);
      },
    };
  }

  /** Ends every follower (their onEnd runs) and the LISTEN connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.gapTimer);
    clearInterval(this.pollTimer);
    for (const f of this.followers) {
      f.stopped = true;
      f.onEnd?.();
    }
    this.followers.clear();
    await this.listener.close();
  }

  /** Reads on its own until it reaches the hub's cursor, then joins the live fan-out (decided without an await in between). */
  private async catchUp(f: Follower): Promise<void> {
    try {
      for (;;) {
        if (f.stopped) return;
        if (this.cursor === undefined) this.cursor = f.cursor;
        if (compareFeedCursors(f.cursor, this.cursor) >= 0) {
          f.live = true;
          // The hub may be behind this follower: read now rather than at the next wake-up.
          this.wake();
          return;
        }
        this.opts.onRead?.('catchup');
        const page = await readFeed(this.orm.em.fork(), f.cursor, CATCH_UP_PAGE, f.filter);
        if (f.stopped) return;
        f.cursor = page.next;
        if (page.events.length) f.onEvents(page.events, page.next);
      }
    } catch (err) {
      this.logger?.warn({ err }, 'feed: a follower could not catch up');
      f.stopped = true;
      this.followers.delete(f);
      f.onEnd?.(err);
    }
  }

  /** A commit was announced (by this instance, or by another through LISTEN). */
  notified(): void {
    this.retryUntil = Date.now() + RETRY_FOR_MS;
    this.retryMs = RETRY_FIRST_MS;
    this.wake();
  }

  private ensurePolling(): void {
    if (this.pollTimer || this.closed) return;
    this.pollTimer = setInterval(() => {
      if (this.followers.size === 0) {
        clearInterval(this.pollTimer);
        this.pollTimer = undefined;
        return;
      }
      if (!this.listener.listening() || Date.now() - this.lastReadAt >= FALLBACK_POLL_MS) this.wake();
    }, this.pollMs);
    this.pollTimer.unref();
  }

  /**
   * Reads what is new and fans it out. Wake-ups that arrive during a read, or within the busy gap after
   * one, coalesce into one read at the gap's end; a full page is followed at once.
   */
  wake(): void {
    if (this.closed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    if (this.followers.size === 0 || this.cursor === undefined) {
      // Nobody follows: the next follower sets the cursor.
      this.cursor = undefined;
      return;
    }
    const wait = this.lastReadAt + this.gap() - Date.now();
    if (wait > 0) {
      if (!this.gapTimer) {
        this.gapTimer = setTimeout(() => {
          this.gapTimer = undefined;
          this.wake();
        }, wait);
        this.gapTimer.unref();
      }
      return;
    }
    this.reading = true;
    void (async () => {
      let sawEvents = false;
      let full: boolean;
      try {
        do {
          this.again = false;
          const from: FeedCursor = this.cursor!;
          this.opts.onRead?.('hub');
          this.lastReadAt = Date.now();
          const page = await readFeed(this.orm.em.fork(), from, PAGE);
          if (this.closed) return;
          this.cursor = page.next;
          if (page.events.length) sawEvents = true;
          this.fanOut(page.events, from, page.next);
          full = page.events.length === PAGE;
        } while (full && !this.closed);
      } catch (err) {
        this.logger?.warn({ err }, 'feed: read failed; retried at the next wake-up');
      } finally {
        this.reading = false;
      }
      if (this.again) {
        // Commits announced while reading: read them after the gap (the retry below would be later).
        this.again = false;
        this.wake();
        return;
      }
      this.scheduleRetry(sawEvents);
    })();
  }

  private gap(): number {
    if (this.opts.busyGapMs !== undefined) return this.opts.busyGapMs;
    const byFollowers = (this.followers.size * 1_000) / FOLLOWER_WRITES_PER_S;
    return Math.min(MAX_BUSY_GAP_MS, Math.max(MIN_BUSY_GAP_MS, byFollowers));
  }

  /** A commit was notified but nothing new is visible yet (an older transaction is still in flight): look again soon. */
  private scheduleRetry(sawEvents: boolean): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (sawEvents) {
      this.retryUntil = 0;
      return;
    }
    if (Date.now() >= this.retryUntil || this.closed) return;
    this.retryTimer = setTimeout(() => this.wake(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  /** `from`: where the page was read from. A follower at or before it takes every event the filter matches. */
  private fanOut(events: FeedEvent[], from: FeedCursor, next: FeedCursor): void {
    const unfiltered = (f: Follower) => !f.filter.types?.length && !f.filter.streamId;
    for (const f of this.followers) {
      if (!f.live || f.stopped) continue;
      const behind = compareFeedCursors(f.cursor, from) <= 0;
      const mine = behind && unfiltered(f) ? events : events.filter((e) => (behind || compareFeedCursors(cursorOf(e), f.cursor) > 0) && matches(e, f.filter));
      if (compareFeedCursors(next, f.cursor) > 0) f.cursor = next;
      if (mine.length) {
        try {
          f.onEvents(mine, f.cursor);
        } catch (err) {
          this.logger?.warn({ err }, 'feed: a follower failed');
        }
      }
    }
  }
}

/**
 * The instance's feed for one database: its hub (made on first follow, so a process that only writes, such
 * as the CLI, never opens the LISTEN connection) and its commit announcer. Built once with the other
 * dependencies (`makeDeps`) and held by `Deps.feed`; every request of the app shares it.
 */
export class Feed {
  private made: FeedHub | undefined;
  private readonly announcer: CommitAnnouncer;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger | undefined,
    private readonly opts: HubOptions = {},
  ) {
    this.announcer = new CommitAnnouncer(orm, logger);
  }

  /** The hub, made on first use, and again after `close` (a follower that comes back after the streams were ended). */
  hub(): FeedHub {
    this.made ??= new FeedHub(this.orm, this.logger, this.opts);
    return this.made;
  }

  /**
   * After a commit that appended events: wakes this instance's followers at once, and announces the
   * commit to other instances and relays (coalesced, after the commit, never inside it).
   */
  committed(): void {
    // Inside a request-wide transaction (an idempotent retry's), the events are not committed yet.
    afterCommit(this.orm, () => {
      this.made?.notified();
      this.announcer.announce();
    });
  }

  /** Shutdown: ends open streams and the LISTEN connection (before the database closes). */
  async close(): Promise<void> {
    const hub = this.made;
    this.made = undefined;
    await hub?.close();
  }
}

/** The feed dependencies are built from: one per database and instance. */
export function createFeed(deps: Pick<Deps, 'orm' | 'logger' | 'metrics'>): Feed {
  return new Feed(deps.orm, deps.logger, { onRead: (r) => deps.metrics.feedRead(r) });
}

/** The instance's hub for this database (`deps.feed`'s). */
export function feedHub(deps: Pick<Deps, 'feed'>): FeedHub {
  return deps.feed.hub();
}

/** After a commit that appended events (see `Feed.committed`). */
export function feedCommitted(deps: Pick<Deps, 'feed'>): void {
  deps.feed.committed();
}
