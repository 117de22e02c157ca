// The GraphQL half of the command lane (server/http/command-lane.ts, issue 37): a `POST /graphql` the lane
// answers runs through yoga's own GraphQL pipeline (`getResultForParams`: the params hooks, the parse and
// validation caches, graphql-armor's limits, the list budget, the operation span, masked errors) and yoga's own
// result processing (`processRegularResult`: the status, the media type, the body), without yoga's HTTP layer:
// whatwg-node's Request and Response, its body streams and its Accept negotiation cost a GraphQL rescore more
// CPU than executing it (bench/README.md, the GraphQL profile).
//
// The lane admits only the plain case and leaves the rest to Express, with the body it read: a body that is not
// a JSON object of `query` (at most MAX_DOCUMENT characters), `variables` and `operationName`; an `Accept` yoga
// would not answer with JSON (laneMediaType); a document that does not parse within the token limit; an
// operation that is not found, a subscription, or one with a root field marked `HTTP_EXCHANGE` (it sets the
// session cookie, or streams), or with a fragment at its root (its fields unread).
import { getOperationAST, Kind, OperationTypeNode, parse, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { processRegularResult, type YogaServerInstance } from 'graphql-yoga';
import type { GraphQLCall, GraphQLContext } from '../../schema/context.js';

/** The longest document the lane admits (and remembers its verdict on); a longer one goes through Express. */
export const MAX_DOCUMENT = 16 * 1024;
/** Documents whose verdict the lane remembers, least recently used first out: at most 256 × 16 KiB. */
const VERDICTS = 256;

type MediaType = 'application/json' | 'application/graphql-response+json';

const REGULAR: readonly MediaType[] = ['application/graphql-response+json', 'application/json'];

/**
 * The media type yoga answers a single result with, for this `Accept`; null when yoga would not answer it
 * with JSON (the lane leaves it). Yoga's negotiation (graphql-yoga's `useResultProcessors`, `accept.js`):
 * the header lower-cased without spaces, its entries split at commas, an entry with a charset other than
 * utf-8 skipped, parameters (`q`) otherwise ignored; its JSON processor comes last, so it wins when any entry
 * matches one of its two types, and the entry that decides is the first in the header that matches one
 * (where `*` matches either half), the later of the two types it matches. Checked against yoga, entry for
 * entry, in the lane's test.
 */
function laneMediaType(accept: string | undefined): MediaType | null {
  const entries = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',');
  for (const entry of entries) {
    const [type, ...params] = entry.split(';');
    if ((params.find((p) => p.includes('charset=')) ?? 'charset=utf-8') !== 'charset=utf-8') continue;
    const [pre, suf] = type.split('/');
    let media: MediaType | null = null;
    for (const candidate of REGULAR) {
      const [cPre, cSuf] = candidate.split('/');
      if ((pre === '*' || pre === cPre) && (suf === '*' || suf === cSuf)) media = candidate;
    }
    if (media) return media;
  }
  return null;
}

/** The media type of the `Accept` values last seen (a client sends the same one each time): at most 64. */
const ACCEPTS = 64;

export interface LaneParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** A request the lane runs: its params and the media type of its answer. */
export interface AdmittedCall {
  params: LaneParams;
  accept: string | undefined;
  media: MediaType;
}

export interface LaneReply {
  status: number;
  headers: [string, string][];
  body: string;
}

export interface GraphqlLane {
  /** The call in this body, when the lane may run it; null leaves the request to Express. */
  admit(body: Buffer, accept: string | undefined): AdmittedCall | null;
  /** Runs an admitted call as yoga would: its answer, status and headers included. */
  run(call: AdmittedCall, who: GraphQLCall): Promise<LaneReply>;
}

const PARAM_KEYS = new Set(['query', 'variables', 'operationName']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body's params when they are exactly what the lane runs, else null. */
function paramsOf(body: Buffer): LaneParams | null {
  // a byte-order mark, or anything else odd, is yoga's to read (or refuse)
  if (body.length === 0 || body[0] !== 0x7b /* { */) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (!isPlainObject(parsed)) return null;
  for (const key in parsed) if (!PARAM_KEYS.has(key)) return null;
  const { query, variables, operationName } = parsed;
  if (typeof query !== 'string' || query.length > MAX_DOCUMENT) return null;
  if (variables !== undefined && variables !== null && !isPlainObject(variables)) return null;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return null;
  return parsed as unknown as LaneParams;
}

/** Whether the lane may run this operation of the document (see the head of this file). */
function laneable(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): boolean {
  const operation: OperationDefinitionNode | null | undefined = getOperationAST(document, operationName);
  if (!operation || operation.operation === OperationTypeNode.SUBSCRIPTION) return false;
  const root = schema.getRootType(operation.operation);
  if (!root) return false;
  const fields = root.getFields();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return false;
    const field = fields[selection.name.value];
    // an unknown field (or __typename): validation answers it, and no resolver of ours runs for it
    if (field?.extensions.httpExchange === true) return false;
  }
  return true;
}

/** The minimal request yoga's GraphQL pipeline reads (its method; `accept` for completeness). */
function laneRequest(accept: string | undefined): Request {
  return {
    method: 'POST',
    url: 'http://lane/graphql',
    headers: { get: (name: string) => (name.toLowerCase() === 'accept' ? (accept ?? null) : null) },
  } as unknown as Request;
}

/** processRegularResult's Response, captured rather than built. */
class Captured {
  constructor(
    readonly body: string,
    readonly init: { status: number; headers: Record<string, string> },
  ) {}
}

/** What yoga's server context carries: who called, from Express's path or the command lane's. */
export interface GraphQLServerContext {
  call: GraphQLCall;
}

export interface LaneOptions {
  /** the service's `onResultProcess` plugin, which yoga's result processing runs (yoga.ts) */
  onResult: (result: unknown, requestId: string) => void;
  /** the parse's token limit (graphql-armor's `maxTokens`) */
  maxTokens: number;
}

export function graphqlLane(yoga: YogaServerInstance<GraphQLServerContext, GraphQLContext>, options: LaneOptions): GraphqlLane {
  const schema: GraphQLSchema = (yoga.getEnveloped() as { schema: GraphQLSchema }).schema;
  // once: yoga is a Proxy that wraps a method anew at every read
  const getResultForParams = yoga.getResultForParams;
  // by document, then by operation name ('' for none): whether the lane runs it
  const verdicts = new Map<string, Map<string, boolean>>();
  const medias = new Map<string, MediaType | null>();

  function verdict(query: string, operationName: string | undefined): boolean {
    let byName = verdicts.get(query);
    if (byName) {
      verdicts.delete(query); // most recently used last
      verdicts.set(query, byName);
    } else {
      byName = new Map();
      verdicts.set(query, byName);
      if (verdicts.size > VERDICTS) verdicts.delete(verdicts.keys().next().value!);
    }
    const key = operationName ?? '';
    let known = byName.get(key);
    if (known === undefined) {
      let document: DocumentNode | null;
      try {
        document = parse(query, { noLocation: true, maxTokens: options.maxTokens });
      } catch {
        document = null; // yoga answers the parse error (or the token limit), through Express
      }
      known = document !== null && laneable(schema, document, operationName);
      // a document sent under many names remembers a few of them
      if (byName.size < 8) byName.set(key, known);
    }
    return known;
  }

  return {
    admit(body, accept) {
      let media = medias.get(accept ?? '');
      if (media === undefined) {
        media = laneMediaType(accept);
        if (medias.size < ACCEPTS && (accept?.length ?? 0) <= 256) medias.set(accept ?? '', media);
      }
      if (!media) return null;
      const params = paramsOf(body);
      if (!params || !verdict(params.query, params.operationName ?? undefined)) return null;
      return { params, accept, media };
    },

    async run(call, who) {
      const result = await getResultForParams(
        { params: call.params as Parameters<typeof getResultForParams>[0]['params'], request: laneRequest(call.accept) },
        { call: who },
      );
      options.onResult(result, who.requestId);
      const captured = processRegularResult(result as never, { Response: Captured } as never, call.media) as unknown as Captured;
      return { status: captured.init.status, headers: Object.entries(captured.init.headers), body: captured.body };
    },
  };
}
