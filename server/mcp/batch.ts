// SPEC §7/§8: JSON-RPC batches on /mcp. The revisions from 2025-06-18 dropped batching; older ones may send
// at most MCP_BATCH_MAX_MESSAGES messages at once, whose list tools together ask for at most
// LIST_ITEMS_PER_REQUEST items (the budget a GraphQL operation has), so one request cannot hold the pool.
import { refuse, type Refusal } from '../domain/errors.js';
import { itemsAsked, LIST_ITEMS_PER_REQUEST, limitBounds, MCP_BATCH_MAX_MESSAGES, type LimitBounds } from '../application/budgets.js';
import { TOOLS } from './tools.js';

/** The first protocol revision whose messages are never batched. */
const NO_BATCHES_FROM = '2025-06-18';
const REVISION = /^\d{4}-\d{2}-\d{2}$/;

let toolBounds: Map<string, LimitBounds> | undefined;

/** The list tools, with the default and maximum `limit` their input schemas declare. */
function listTools(): Map<string, LimitBounds> {
  return (toolBounds ??= new Map(
    TOOLS.flatMap((t) => (t.input.shape.limit ? [[t.name, limitBounds(t.input.shape.limit as Parameters<typeof limitBounds>[0])] as const] : [])),
  ));
}

type Message = { method?: unknown; params?: { name?: unknown; arguments?: { limit?: unknown }; protocolVersion?: unknown } } | null;

/** The revision a batch speaks: the MCP-Protocol-Version header, or that of an `initialize` inside it. */
function revisions(messages: Message[], header: string | undefined): string[] {
  const named = [header, ...messages.map((m) => (m?.method === 'initialize' ? m.params?.protocolVersion : undefined))];
  return named.filter((v): v is string => typeof v === 'string' && REVISION.test(v));
}

/** The items the list tools of a batch ask for, each at its `limit` (default when absent, maximum when out of range). */
function itemsOf(messages: Message[]): number {
  const tools = listTools();
  let items = 0;
  for (const m of messages) {
    const bounds = m?.method === 'tools/call' && typeof m.params?.name === 'string' ? tools.get(m.params.name) : undefined;
    if (bounds) items += itemsAsked(bounds, m?.params?.arguments?.limit);
  }
  return items;
}

/** Why a JSON-RPC body may not be served as a batch, or null (a single message, or a batch within the rules). */
export function batchRefusal(body: unknown, protocolHeader: string | undefined): Refusal | null {
  if (!Array.isArray(body)) return null;
  const messages = body as Message[];
  const modern = revisions(messages, protocolHeader).find((v) => v >= NO_BATCHES_FROM);
  const notOne = [{ path: '(root)', message: 'must be one JSON-RPC message, not an array', code: 'invalid_type', params: { expected: 'object' } }];
  if (modern) {
    return refuse('validation_failed', `Protocol revision ${modern} has no JSON-RPC batches: send one message per request.`, { errors: notOne });
  }
  if (messages.length === 0) {
    return refuse('validation_failed', 'An empty JSON-RPC batch asks for nothing: send at least one message.', {
      errors: [{ path: '(root)', message: 'must hold at least one message', code: 'too_small', params: { min: 1 } }],
    });
  }
  if (messages.length > MCP_BATCH_MAX_MESSAGES) {
    return refuse('too_costly', `A JSON-RPC batch may hold at most ${MCP_BATCH_MAX_MESSAGES} messages; send the others in further requests.`, {
      maxMessages: MCP_BATCH_MAX_MESSAGES,
    });
  }
  if (itemsOf(messages) > LIST_ITEMS_PER_REQUEST) {
    return refuse(
      'too_costly',
      `The list tools of this batch ask for more than ${LIST_ITEMS_PER_REQUEST} items in all; ask for smaller pages or send them in further requests.`,
      {
        maxItems: LIST_ITEMS_PER_REQUEST,
      },
    );
  }
  return null;
}
