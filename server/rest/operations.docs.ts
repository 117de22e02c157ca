// OpenAPI operations from the operation registry (server/application/operations.ts): the same fields the
// hand-written route docs state, read off each entry's `rest` face and its zod input and output.
import { inputOptional, type OperationEntry } from '../application/operations.js';
import { OPERATIONS } from '../application/registry.js';
import type { RouteDoc } from './openapi.js';

export function operationDoc(entry: OperationEntry): RouteDoc {
  const rest = entry.rest!;
  return {
    method: rest.method,
    path: rest.path,
    summary: rest.summary,
    description: rest.description,
    tag: rest.tag,
    operation: entry.operation,
    status: rest.status,
    ...(rest.auth ? { auth: rest.auth } : {}),
    ...(rest.operationId ? { operationId: rest.operationId } : {}),
    ...(rest.pathParams ? { pathParams: rest.pathParams } : {}),
    ...(rest.input === 'body' && entry.input ? { body: entry.input, bodyRequired: rest.bodyRequired ?? !inputOptional(entry) } : {}),
    ...(rest.input === 'query' && entry.input ? { query: entry.input } : {}),
    ...(entry.output && rest.status !== 204 ? { response: entry.output } : {}),
    ...(entry.errors ? { errors: entry.errors } : {}),
  };
}

/** The docs of the entries of one OpenAPI tag group, in registry order (`['users', 'api-keys']`). */
export const operationDocs = (tags: readonly string[]): RouteDoc[] => OPERATIONS.filter((e) => e.rest && tags.includes(e.rest.tag)).map(operationDoc);
