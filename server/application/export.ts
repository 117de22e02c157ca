// Export of a list (issue 36): every page of a list as CSV or NDJSON, read through the list's own use case
// (same filters, same order, same permission, a page at a time), so an export's rows are the API's rows.
import { z } from 'zod';
import { ok, type Result } from '../domain/errors.js';
import { listActors } from './actors/actors.js';
import { listAudit } from './audit/audit.js';
import { authorize } from './authorize.js';
import type { Ctx, Deps } from './context.js';
import { openStreamGuard } from './events/stream-guard.js';
import type { Page } from './paging.js';
import { OPERATION_PERMISSIONS, type Operation } from './permission-table.js';
import { listTensions } from './tensions/tension.queries.js';
import { listUsers } from './users/users.js';
import { parseInput } from './validate.js';

/** The most rows one export serves; past it the answer ends and its trailer names where to resume (a budget, SPEC §7). */
export const EXPORT_MAX_ROWS = 100_000;
/** Rows read per page: the lists' largest page. */
const EXPORT_PAGE = 100;

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The export's own parameters; every other one is the list's filter, checked by the list itself. */
export const exportParams = z.object({
  format: z.enum(EXPORT_FORMATS).default('csv').describe('csv (RFC 4180, a header row) or ndjson (one JSON object a line, as the list serves each item).'),
  limit: z.undefined({ error: 'an export serves every page; leave limit out' }).optional(),
});

type Row = Record<string, unknown>;
/** A CSV column: its header and its value in one list item. */
type Column = [header: string, value: (row: Row) => unknown];

const at =
  (...path: string[]) =>
  (row: Row): unknown =>
    path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Row)[k] : null), row);
const cols = (...paths: string[]): Column[] => paths.map((p) => [p, at(...p.split('.'))]);

interface ExportList {
  /** the export's operation (its permission is the list's) */
  operation: Operation;
  filename: string;
  list: (deps: Deps, ctx: Ctx, query: unknown) => Promise<Result<Page<unknown>>>;
  columns: Column[];
}

export const EXPORT_LISTS = {
  tensions: {
    operation: 'tensions.export',
    filename: 'tensions',
    list: listTensions,
    columns: cols(
      'id',
      'name',
      'state',
      'score',
      'actorId',
      'actor.name',
      'actor.type',
      'leadUserId',
      'lead.name',
      'currentContext',
      'potentialFuture',
      'version',
      'createdAt',
      'updatedAt',
    ),
  },
  actors: {
    operation: 'actors.export',
    filename: 'actors',
    list: listActors,
    columns: cols('id', 'name', 'type', 'tensionCount', 'version', 'createdAt', 'updatedAt'),
  },
  users: {
    operation: 'users.export',
    filename: 'users',
    list: listUsers,
    columns: [
      ...cols('id', 'type', 'email', 'name', 'status', 'linkedActorId', 'linkedActor.name'),
      ['roles', (row) => (row.roles as { code: string }[]).map((r) => r.code).join(' ')],
      ...cols('version', 'createdAt', 'updatedAt'),
    ],
  },
  audit: {
    operation: 'audit.export',
    filename: 'audit',
    list: listAudit,
    columns: cols(
      'id',
      'at',
      'action',
      'by.kind',
      'by.userId',
      'by.userName',
      'by.apiKeyId',
      'by.apiKeyName',
      'by.via',
      'target.type',
      'target.id',
      'target.label',
      'changes',
      'requestId',
      'clientAddress',
    ),
  },
} satisfies Record<string, ExportList>;

export type ExportListName = keyof typeof EXPORT_LISTS;

/** A CSV field: objects as JSON, null as empty, quoted when it holds a quote, comma or line break (RFC 4180). */
function csvField(value: unknown): string {
  // numbers and booleans read the same as JSON
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  // A leading = + - @ would be a formula in a spreadsheet: a tab before it keeps it text (OWASP CSV injection).
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === 'string' ? `\t${text}` : text;
  return /[",\r\n\t]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvLine = (fields: unknown[]) => `${fields.map(csvField).join(',')}\r\n`;

export interface ExportRun {
  format: ExportFormat;
  contentType: string;
  filename: string;
  /** the header line (CSV) or nothing (NDJSON) */
  head: string;
  /** the lines of one list item */
  line: (item: unknown) => string;
  /** the first page, already read: a bad filter is refused before a byte is sent */
  first: Page<unknown>;
  /** the page after `cursor`, or the refusal of a caller whose rights ended since the export began */
  next: (cursor: string) => Promise<Result<Page<unknown>>>;
  /** aborted when the caller loses the right to the export (within about RIGHTS_CHECK_MS): stop sending */
  revoked: AbortSignal;
  /** the export ended, however it ended: frees its stream slot. Idempotent. */
  close: () => void;
}

/**
 * Authorizes, parses the export's own parameters, and reads the first page with the rest as the list's filter.
 *
 * An export is a stream (SPEC §7, §10): it holds one of the user's open-stream slots, and it follows its
 * caller's rights. Each page is handed out only after a check of the credential that started after the page
 * was read, so a key revoked, a permission removed, a user deactivated or a session ended mid-export gets
 * nothing read after that; and `revoked` fires within about RIGHTS_CHECK_MS even while the client is slow
 * to take a page. The caller must `close()` the run.
 */
export async function startExport(deps: Deps, ctx: Ctx, name: ExportListName, query: Record<string, unknown>): Promise<Result<ExportRun>> {
  const spec: ExportList = EXPORT_LISTS[name];
  const denied = authorize(ctx, spec.operation);
  if (denied) return denied;
  const { format: rawFormat, limit, ...filter } = query;
  const params = parseInput(exportParams, { format: rawFormat, limit });
  if (!params.ok) return params;
  const revoked = new AbortController();
  const permission = OPERATION_PERMISSIONS[spec.operation];
  const guard = openStreamGuard(deps, ctx.caller, {
    needs: permission ? [permission] : [],
    revoked: () => revoked.abort(),
    // pages are checked one at a time through verify(), never queued on the guard
    overflow: () => revoked.abort(),
  });
  if (!guard.ok) return guard;
  const read = async (cursor?: string): Promise<Result<Page<unknown>>> => {
    const page = await spec.list(deps, ctx, { ...filter, limit: EXPORT_PAGE, ...(cursor ? { cursor } : {}) });
    if (!page.ok) return page;
    const refusal = await guard.value.verify();
    return refusal ?? page;
  };
  const first = await read(typeof filter.cursor === 'string' ? filter.cursor : undefined);
  if (!first.ok) {
    guard.value.close();
    return first;
  }
  const format = params.value.format;
  return ok({
    format,
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    filename: `${spec.filename}.${format}`,
    head: format === 'csv' ? csvLine(spec.columns.map(([h]) => h)) : '',
    line: format === 'csv' ? (item) => csvLine(spec.columns.map(([, v]) => v(item as Row))) : (item) => `${JSON.stringify(item)}\n`,
    first: first.value,
    next: (cursor) => read(cursor),
    revoked: revoked.signal,
    close: () => guard.value.close(),
  });
}
