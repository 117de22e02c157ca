// Wake-ups for feed readers: one dedicated LISTEN connection per instance on channel `market_events`,
// notified by `CommitAnnouncer.announce` after a command that appended events has committed (never inside the
// appending transaction: PostgreSQL serialises the commits of notifying transactions cluster-wide). The connection
// proves it hears notifications (it notifies itself through the pool) before the caller stops polling:
// the embedded database's socket accepts LISTEN but delivers nothing between connections.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.js';
import { rawConnections, type RawConnection } from './database.js';
import { withoutValues } from './statements.js';

export const FEED_CHANNEL = 'market_events';

export interface FeedListener {
  /** false while no LISTEN connection is up (embedded database, or reconnecting): poll instead */
  listening(): boolean;
  close(): Promise<void>;
}

const RECONNECT_MS = 2_000;

/**
 * Listens outside the pool (a raw connection the pool never hands out), reconnecting after a drop.
 * `onWake` runs on every notification, and once after each (re)connect, for what was missed meanwhile.
 */
export function listenForCommits(orm: MikroORM, onWake: () => void, logger?: Logger): FeedListener {
  const raw = rawConnections(orm);
  let conn: RawConnection | null = null;
  /** the LISTEN connection heard its own probe: notifications really arrive */
  let heard = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const drop = (c: RawConnection) => {
    c.removeAllListeners();
    void raw.destroy(c).catch(() => undefined);
  };
  const connect = async () => {
    retry = undefined;
    if (closed) return;
    try {
      const c = await raw.acquire();
      if (closed) return drop(c);
      const probe = `probe-${Math.random().toString(36).slice(2)}`;
      c.on('notification', (n: { channel: string; payload?: string }) => {
        if (n.channel !== FEED_CHANNEL) return;
        if (n.payload === probe) heard = true;
        onWake();
      });
      const lost = (err?: Error) => {
        if (conn !== c) return;
        conn = null;
        heard = false;
        drop(c);
        if (!closed) {
          logger?.warn({ err }, 'feed: LISTEN connection lost; polling until it is back');
          retry = setTimeout(() => void connect(), RECONNECT_MS);
        }
      };
      c.on('error', lost);
      c.on('end', lost);
      await c.query(`listen ${FEED_CHANNEL}`);
      conn = c;
      await orm.em.fork().execute(`select pg_notify('${FEED_CHANNEL}', ?)`, [probe]);
      onWake();
    } catch (err) {
      logger?.warn({ err }, 'feed: cannot LISTEN; polling until it can');
      if (!closed) retry = setTimeout(() => void connect(), RECONNECT_MS);
    }
  };
  void connect();
  return {
    listening: () => conn !== null && heard,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = conn;
      conn = null;
      if (c) {
        c.removeAllListeners();
        await raw.destroy(c).catch(() => undefined);
      }
    },
  };
}

/** The shortest gap between two announcements of one instance: bounds notifications at ~100/s whatever the write rate. */
const ANNOUNCE_GAP_MS = 10;

/**
 * Tells every listener (other instances' feed readers, relays) that events were committed. One per
 * instance and database, held by its feed (`Deps.feed`). Call `announce` after the commit. Coalesced:
 * while one notification is on its way, or within ANNOUNCE_GAP_MS of the last, further calls make one
 * more notification, not one each. Never waits, never throws.
 */
export class CommitAnnouncer {
  private sending = false;
  private pending = false;
  private lastAt = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger?: Logger,
  ) {}

  announce(): void {
    if (this.sending) {
      this.pending = true;
      return;
    }
    this.sending = true;
    const wait = Math.max(0, this.lastAt + ANNOUNCE_GAP_MS - Date.now());
    if (wait === 0) void this.send();
    else setTimeout(() => void this.send(), wait).unref();
  }

  private async send(): Promise<void> {
    this.pending = false;
    this.lastAt = Date.now();
    try {
      // straight to the driver: below ~100 commands a second this is one statement per command
      await withoutValues(this.orm.em, `select pg_notify('${FEED_CHANNEL}', '')`);
    } catch (err) {
      // the readers' fallback poll still finds the events
      this.logger?.debug({ err }, 'feed: could not announce a commit');
    } finally {
      this.sending = false;
      if (this.pending) this.announce();
    }
  }
}
