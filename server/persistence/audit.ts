// The audit trail's table (SPEC §11): one insert per recorded action, and the newest-first filtered list.
// The table is append-only (its trigger refuses UPDATE, DELETE and TRUNCATE): nothing here changes a row.
import type { EntityManager } from '@mikro-orm/postgresql';

export type AuditByKind = 'human' | 'agent' | 'system' | 'anonymous';
export type AuditVia = 'graphql' | 'rest' | 'mcp' | 'cli';

export interface AuditBy {
  kind: AuditByKind;
  userId: string | null;
  userName: string | null;
  apiKeyId: string | null;
  apiKeyName: string | null;
  via: AuditVia;
}

export interface AuditTarget {
  type: string;
  id: string | null;
  label: string | null;
}

export type AuditChanges = Record<string, { from: unknown; to: unknown }>;

export interface AuditEntry {
  id: string;
  at: Date;
  action: string;
  by: AuditBy;
  target: AuditTarget;
  changes: AuditChanges;
  requestId: string | null;
  clientAddress: string | null;
}

export async function insertAuditEntry(tx: EntityManager, e: AuditEntry): Promise<void> {
  await tx.execute(
    `insert into audit_log (id, at, action, by_kind, by_user_id, by_user_name, by_api_key_id, by_api_key_name, via,
       target_type, target_id, target_label, changes, request_id, client_address)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
    [
      e.id,
      e.at,
      e.action,
      e.by.kind,
      e.by.userId,
      e.by.userName,
      e.by.apiKeyId,
      e.by.apiKeyName,
      e.by.via,
      e.target.type,
      e.target.id,
      e.target.label,
      JSON.stringify(e.changes),
      e.requestId,
      e.clientAddress,
    ],
  );
}

export interface AuditFilter {
  action?: string;
  targetType?: string;
  targetId?: string;
  byUserId?: string;
  /** the user as the target, or a key of the user as the target */
  aboutUserId?: string;
  /** inclusive */
  from?: Date;
  /** exclusive */
  to?: Date;
}

/** An entry with its keyset position: `at` as PostgreSQL prints it (full microsecond precision) and the id. */
export interface AuditListRow {
  entry: AuditEntry;
  key: [string, string];
}

interface AuditRow {
  id: string;
  at: Date | string;
  at_key: string;
  action: string;
  by_kind: AuditByKind;
  by_user_id: string | null;
  by_user_name: string | null;
  by_api_key_id: string | null;
  by_api_key_name: string | null;
  via: AuditVia;
  target_type: string;
  target_id: string | null;
  target_label: string | null;
  changes: AuditChanges | string;
  request_id: string | null;
  client_address: string | null;
}

function toEntry(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    at: new Date(r.at),
    action: r.action,
    by: { kind: r.by_kind, userId: r.by_user_id, userName: r.by_user_name, apiKeyId: r.by_api_key_id, apiKeyName: r.by_api_key_name, via: r.via },
    target: { type: r.target_type, id: r.target_id, label: r.target_label },
    changes: typeof r.changes === 'string' ? (JSON.parse(r.changes) as AuditChanges) : r.changes,
    requestId: r.request_id,
    clientAddress: r.client_address,
  };
}

function auditFilterSql(filter: AuditFilter): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (filter.action) add('action = ?', filter.action);
  if (filter.targetType) add('target_type = ?', filter.targetType);
  if (filter.targetId) add('target_id = ?::uuid', filter.targetId);
  if (filter.byUserId) add('by_user_id = ?::uuid', filter.byUserId);
  if (filter.aboutUserId) {
    // a key's entries name the key as their target; its owner is the key's row (keys are never deleted but with
    // their user). Two probes of the target index, not a scan.
    where.push("(target_id = ?::uuid or (target_type = 'key' and target_id in (select k.id from api_keys k where k.user_id = ?::uuid)))");
    params.push(filter.aboutUserId, filter.aboutUserId);
  }
  if (filter.from) add('at >= ?::timestamptz', filter.from);
  if (filter.to) add('at < ?::timestamptz', filter.to);
  return { where, params };
}

/** Newest first, `(at, id)` descending; `before` is the key of the last entry of the previous page. */
export async function listAuditEntries(em: EntityManager, filter: AuditFilter, before: [string, string] | undefined, limit: number): Promise<AuditListRow[]> {
  const { where, params } = auditFilterSql(filter);
  if (before) {
    where.push('(at, id) < (?::timestamptz, ?::uuid)');
    params.push(...before);
  }
  const rows = await em.execute<AuditRow[]>(
    `select *, at::text as at_key from audit_log ${where.length ? `where ${where.join(' and ')}` : ''}
     order by at desc, id desc limit ?`,
    [...params, limit],
  );
  return rows.map((r) => ({ entry: toEntry(r), key: [r.at_key, r.id] }));
}

/** How many entries match `filter`, counting at most `bound + 1` rows (a count with a LIMIT, never every row). */
export async function countAuditEntries(em: EntityManager, filter: AuditFilter, bound: number): Promise<number> {
  const { where, params } = auditFilterSql(filter);
  const [row] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from (select 1 from audit_log ${where.length ? `where ${where.join(' and ')}` : ''} limit ?) s`,
    [...params, bound + 1],
  );
  return row.n;
}
