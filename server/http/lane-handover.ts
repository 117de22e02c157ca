// What the command lane (command-lane.ts) found of a request before it left it to Express, read by Express's
// middlewares instead of doing the work again: the bearer key's verdict (authenticateRequest: one lookup for a
// refused request, however many a caller sends), the request span the lookup ran in (httpTracing: the
// request stays one span, its lookup's SQL span beneath it) and the body it read (a GraphQL request it did
// not admit: yoga.ts reads that instead of the spent stream). One record on the request, set only by the lane.
import type { IncomingMessage } from 'node:http';
import type { Result } from '../domain/errors.js';
import type { Caller } from '../application/context.js';
import type { StartedSpan } from '../tracing.js';

export interface LaneFindings {
  /** the bearer key's verdict; absent when its lookup failed (Express looks again and answers the failure) */
  verified?: Result<Caller>;
  /** the request span the lane started, which Express's tracing ends */
  span?: StartedSpan;
  /** the whole body, when the lane read it before it left (the stream is spent) */
  body?: Buffer;
}

const FOUND = Symbol('what the command lane found before it left the request to Express');
type Handed = IncomingMessage & { [FOUND]?: LaneFindings };

export function leaveToExpress(req: IncomingMessage, findings: LaneFindings): void {
  (req as Handed)[FOUND] = findings;
}

export function laneFindings(req: IncomingMessage): LaneFindings | undefined {
  return (req as Handed)[FOUND];
}
