// OpenAPI description of the exports (issue 36): one route per list, its filters the list's own.
import { z } from 'zod';
import { listActorsQuery } from '../application/actors/actor.inputs.js';
import { listAuditQuery } from '../application/audit/audit.js';
import { EXPORT_MAX_ROWS, exportParams, type ExportListName } from '../application/export.js';
import { listTensionsQuery } from '../application/tensions/tension.inputs.js';
import { listUsersInput } from '../application/users/users.js';
import type { RouteDoc } from './openapi.js';

/** The list's parameters without `limit` (an export serves every page), with `format`. */
function exportQuery(list: z.ZodObject): z.ZodObject {
  const { limit: _, ...filters } = list.shape;
  return z.object({ ...filters, format: exportParams.shape.format });
}

const DOCS: Record<ExportListName, { tag: string; what: string; query: z.ZodObject }> = {
  tensions: { tag: 'tensions', what: 'the tensions list (GET /tensions)', query: listTensionsQuery },
  actors: { tag: 'actors', what: 'the actors list (GET /actors)', query: listActorsQuery },
  users: { tag: 'users', what: 'the users list (GET /users)', query: listUsersInput },
  audit: { tag: 'audit', what: 'the audit trail (GET /audit)', query: listAuditQuery },
};

export const EXPORT_ROUTE_DOCS: RouteDoc[] = Object.entries(DOCS).map(([name, d]) => ({
  method: 'get',
  path: `/export/${name}`,
  summary: `Export ${d.what.replace(/ \(.*/, '')}`,
  description:
    `Every page of ${d.what} with the same filters, order and permission, as CSV (a header row; objects as JSON; a text starting with = + - or @ gets a leading tab, so a spreadsheet never runs it) or NDJSON (each item exactly as the list serves it). ` +
    `Streamed a page at a time. At most ${EXPORT_MAX_ROWS.toLocaleString('en')} rows: past them the answer ends, and its trailer \`X-Export-Next-Cursor\` is the cursor to resume from (pass it as \`cursor\`). ` +
    'A filter the list refuses is 400 before anything is sent; an answer that breaks off half-way was not whole.',
  tag: d.tag,
  operation: `${name}.export` as RouteDoc['operation'],
  operationId: `export${name[0].toUpperCase()}${name.slice(1)}`,
  query: exportQuery(d.query),
  download: ['text/csv', 'application/x-ndjson'],
  status: 200,
}));
