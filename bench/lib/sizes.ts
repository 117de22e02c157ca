// What one bench run measures and how big: the full run of the issue, or --quick for a smoke run.
export interface Sizes {
  quick: boolean;
  /** tensions the rescore figures spread over (disjoint slices per client/connection) */
  tensions: number;
  /** of which sensed through the API (the rest are written by SQL exactly as the command path would) */
  sensedViaApi: number;
  /** streams of `longEvents` events each, for the long-stream and history figures */
  longStreams: number;
  longEvents: number;
  /** the rebuild's data set: streams × events per stream */
  rebuildStreams: number;
  rebuildEventsPerStream: number;
  /** seconds per HTTP/pgbench measurement */
  seconds: number;
  rounds: number;
  /** tensions sensed through the embedded database's API */
  embeddedTensions: number;
  /** the relay's backlog per round: streams of 10 events */
  relayBacklogStreams: number;
}

export function sizesFor(quick: boolean, rounds?: number): Sizes {
  return quick
    ? {
        quick,
        tensions: 200,
        sensedViaApi: 20,
        longStreams: 8,
        longEvents: 1_000,
        rebuildStreams: 2_000,
        rebuildEventsPerStream: 10,
        seconds: 2,
        rounds: rounds ?? 3,
        embeddedTensions: 64,
        relayBacklogStreams: 1_000,
      }
    : {
        quick,
        tensions: 10_000,
        sensedViaApi: 200,
        longStreams: 8,
        longEvents: 10_000,
        rebuildStreams: 100_000,
        rebuildEventsPerStream: 10,
        seconds: 8,
        rounds: rounds ?? 3,
        embeddedTensions: 64,
        relayBacklogStreams: 5_000,
      };
}

/** Deterministic ids for SQL-written tensions: pgbench can address them without a lookup. */
export const POOL_BASE = 0;
export const LONG_BASE = 1_000_000;
export const REBUILD_BASE = 2_000_000;
/** one-event streams, a fresh set per round: the other side of the long-stream comparison */
export const FRESH_BASE = 3_000_000;
/** the relay's backlogs: a fresh set of `relayBacklogStreams` streams per round */
export const BACKLOG_BASE = 4_000_000;

export function tensionId(n: number): string {
  return `00000000-0000-4000-8000-${100_000_000_000 + n}`;
}

/** `[from, to)` of client `c` among `clients` over `total` items: disjoint, so clients never conflict. */
export function slice(total: number, clients: number, c: number): [number, number] {
  const per = Math.floor(total / clients);
  return [c * per, (c + 1) * per];
}
