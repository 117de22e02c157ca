// Who is calling, through which face, and the dependencies every use case receives as arguments.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { HostResolver } from './webhooks/destination.js';
import type { DatabaseTraits } from '../persistence/database.js';
import type { SearchMemory } from '../persistence/tension-projection.js';
import type { PartyNameSyncer } from '../persistence/tension-party-names.js';
import type { Feed } from './events/feed-hub.js';
import type { RightsWatch } from './events/stream-guard.js';

export type Via = 'graphql' | 'rest' | 'mcp' | 'cli';

export interface Caller {
  kind: 'human' | 'agent' | 'system';
  userId: string | null;
  userName: string | null;
  /**
   * raw grants of the user's roles (may hold wildcards). Never test these directly: a key may be narrower
   * than its user; `callerGrants` (application/authorize.ts) is what the caller may do.
   */
  userGrants: string[];
  /** the key's `permissions` when the request came with a scoped key; null = all of the user's */
  keyPermissions: string[] | null;
  authenticatedBy: 'session' | 'api_key' | 'oauth' | 'system';
  /** the grant behind an OAuth access token (SPEC §13); `keyPermissions` then holds its scopes */
  oauthGrant?: { id: string; clientId: string; clientName: string | null } | null;
  apiKey: { id: string; name: string } | null;
  sessionId: string | null;
  /**
   * SPEC §16 (REQUIRE_MFA_FOR_ADMINS): a session of a holder of `*` without a second factor may do nothing
   * but enrol one (and see who it is); every other operation is refused 403 `mfa_enrolment_required`.
   */
  mfaEnrolmentRequired?: boolean;
}

export interface Ctx {
  caller: Caller;
  via: Via;
  requestId: string;
  /** the client's address (SPEC §6: the socket's peer, or what a trusted proxy forwarded); the CLI has none */
  clientAddress?: string | null;
  correlationId?: string;
  causationId?: string;
}

export interface Deps {
  orm: MikroORM;
  config: Config;
  logger: Logger;
  clock: () => Date;
  newId: () => string;
  sessionSecret: string;
  metrics: Metrics;
  /** what kind of database `orm` reaches and what it allows (persistence/database.ts) */
  database: DatabaseTraits;
  /** this instance's feed of that database: the hub its streams follow and the announcer of its commits (`createDeps`) */
  feed: Feed;
  /** this instance's open streams: their count per user and their credentials' checks (events/stream-guard.ts) */
  streamGuards: RightsWatch;
  /**
   * One EntityManager shared by the hot path's plain statements outside a transaction (the key lookup, a
   * command's reads and write): they never touch an identity map, so one fork serves them all rather than two
   * forks a request (persistence/transaction.ts `statementReader`, issue 37).
   */
  statements: EntityManager;
  /**
   * rewrites renamed parties' names on their tensions, in the background: `renamed()` after a rename (it runs
   * once the rename commits), `run()` resolves when this round is done (persistence/tension-party-names.ts)
   */
  partyNames: PartyNameSyncer;
  /** how webhook URLs' host names resolve (SPEC §14); default the system resolver. Tests stub it. */
  resolveHost?: HostResolver;
  /** as-of reads leave a snapshot of the past fold every this many versions (default 100, 0: none; issue 34). Tests make it small. */
  pastSnapshotEvery?: number;
  /** the most rows one export serves (default EXPORT_MAX_ROWS; issue 36). Tests make it small. */
  exportMaxRows?: number;
  /** requests per API key since this instance last wrote its `last_used_at` (the dashboard's key usage); absent: each write counts one */
  keyUses?: Map<string, number>;
  /** what this instance's tension searches learnt of their texts' frequency (persistence/tension-projection.ts); absent: each search probes */
  searchMemory?: SearchMemory;
  /** the most tensions one search without a trigram reads (default WALK.scanMax; issue 37). Tests make it small. */
  searchScanMax?: number;
}

/** The caller the CLI acts as: every permission, recorded as `system` in event metadata. */
export function systemCaller(): Caller {
  return {
    kind: 'system',
    userId: null,
    userName: 'system',
    userGrants: ['*'],
    keyPermissions: null,
    authenticatedBy: 'system',
    apiKey: null,
    sessionId: null,
  };
}
