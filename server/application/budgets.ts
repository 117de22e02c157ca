// Per-request budgets (SPEC §7): how many list items one request may ask for, counted from the `limit`
// each list takes, before anything runs. GraphQL operations and MCP batches spend the same budget.
import { z } from 'zod';

/** The most list items one GraphQL operation or one MCP batch may ask for (each list's limit, multiplied through nesting, summed). */
export const LIST_ITEMS_PER_REQUEST = 2000;

/** The messages one JSON-RPC batch may hold on the MCP revisions that allow batches (2025-03-26 and older). */
export const MCP_BATCH_MAX_MESSAGES = 10;

export interface LimitBounds {
  /** what the list serves when `limit` is absent */
  default: number;
  /** the most it serves in one page */
  max: number;
}

/** A list's `limit` schema read as its default and maximum (the same zod schema the use case parses with). */
export function limitBounds(limit: z.ZodType): LimitBounds {
  const json = z.toJSONSchema(limit, { io: 'output', unrepresentable: 'any' }) as { default?: unknown; maximum?: unknown };
  if (typeof json.default !== 'number' || typeof json.maximum !== 'number') {
    throw new Error('a list limit must declare its default and its maximum');
  }
  return { default: json.default, max: json.maximum };
}

/**
 * The items a list will serve for the `limit` given: the default when absent, the value when it is one the
 * list serves, and the maximum otherwise (such a limit is refused by the list itself, so it costs no more).
 */
export function itemsAsked(bounds: LimitBounds, given: unknown): number {
  if (given === undefined || given === null) return bounds.default;
  const n = typeof given === 'string' && /^\d{1,10}$/.test(given) ? Number(given) : given;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= bounds.max ? n : bounds.max;
}
