// Totals of the roles list, the audit trail and a webhook endpoint's deliveries (issue 36): "1–20 of N" in the
// admin app, exact up to 10,000, "10,000+" beyond, counted with a LIMIT (never every row); GraphQL only
// (`rolesTotal`, `auditLogTotal`, `webhookDeliveriesTotal`), as the other lists' totals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { countRoleRows } from '../../../server/persistence/roles.js';
import { countAuditEntries } from '../../../server/persistence/audit.js';
import { countDeliveryRows } from '../../../server/persistence/webhooks.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let endpointId: string;
let otherEndpointId: string;

beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: 0, webhookAllowPrivate: true });
  c = client(app, (await seedUserWithKey(app, { grants: ['*'], name: 'Counter' })).key);
  for (let i = 0; i < 5; i++) expect((await c.post('/roles', { code: `harbour-${i}`, name: `Harbour role ${i}`, permissions: [] })).status).toBe(201);
  expect((await c.post('/roles', { code: 'customs', name: 'Customs', permissions: ['tensions:read'] })).status).toBe(201);
  const hook = (n: number) => c.post('/webhooks', { url: `http://127.0.0.1:9/hook-${n}`, enabled: false });
  endpointId = (await hook(1)).body.id;
  otherEndpointId = (await hook(2)).body.id;
  // deliveries as the dispatcher queues them (none runs here; times in milliseconds, as the app writes them):
  // 4 pending, 3 failed on the first endpoint, 2 on the other
  const insert = (endpoint: string, status: string, n: number) =>
    app.em().execute(
      `insert into webhook_deliveries (id, endpoint_id, message_id, event_type, payload, status, created_at)
       select gen_random_uuid(), ?, 'msg_' || gen_random_uuid(), 'webhook.test', '{}', ?, date_trunc('milliseconds', now()) from generate_series(1, ?)`,
      [endpoint, status, n],
    );
  await insert(endpointId, 'pending', 4);
  await insert(endpointId, 'failed', 3);
  await insert(otherEndpointId, 'succeeded', 2);
});
afterAll(async () => {
  await app?.close();
});

/** Every page of a list through its API. */
async function allPages(path: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await c.get(`${path}${sep}limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, path).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

async function total(field: string): Promise<unknown> {
  const res = await c.gql(`query { ${field} { count exact } }`);
  expect(res.body.errors, field).toBeUndefined();
  return Object.values(res.body.data as Record<string, unknown>)[0];
}

/** The error code a total's query answers (and its HTTP status, never a 5xx). */
async function refusal(field: string, as = c): Promise<unknown> {
  const res = await as.gql(`query { ${field} { count exact } }`);
  expect(res.status, field).toBeLessThan(500);
  return res.body.errors?.[0]?.extensions?.code;
}

describe('roles, audit and deliveries totals: exact up to a bound', () => {
  it('equal the number of items the pages hold for the same filters', async () => {
    const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
    for (const [path, field] of [
      ['/roles', 'rolesTotal'],
      ['/roles?q=HARBOUR', 'rolesTotal(q: "HARBOUR")'],
      ['/roles?q=no%20such%20role', 'rolesTotal(q: "no such role")'],
      ['/audit', 'auditLogTotal'],
      ['/audit?action=role.created', 'auditLogTotal(action: "role.created")'],
      ['/audit?targetType=webhook', 'auditLogTotal(targetType: "webhook")'],
      [`/audit?from=${since}&action=webhook.created`, `auditLogTotal(from: "${decodeURIComponent(since)}", action: "webhook.created")`],
      [`/webhooks/${endpointId}/deliveries`, `webhookDeliveriesTotal(id: "${endpointId}")`],
      [`/webhooks/${endpointId}/deliveries?status=failed`, `webhookDeliveriesTotal(id: "${endpointId}", status: "failed")`],
      [`/webhooks/${otherEndpointId}/deliveries?status=failed`, `webhookDeliveriesTotal(id: "${otherEndpointId}", status: "failed")`],
    ] as const) {
      const n = (await allPages(path)).length;
      expect(await total(field), field).toEqual({ count: n, exact: true });
    }
    expect(await total('rolesTotal(q: "harbour")')).toEqual({ count: 5, exact: true });
    expect(await total('auditLogTotal(action: "webhook.created")')).toEqual({ count: 2, exact: true });
    expect(await total(`webhookDeliveriesTotal(id: "${endpointId}", status: "pending")`)).toEqual({ count: 4, exact: true });
    expect(await total(`webhookDeliveriesTotal(id: "${otherEndpointId}")`)).toEqual({ count: 2, exact: true });
    // not REST paths: the contract has none
    expect((await c.get('/roles/count')).status).toBe(404);
  });

  it('count at most bound + 1 rows', async () => {
    expect(await countRoleRows(app.em(), 'harbour', 2)).toBe(3);
    expect(await countRoleRows(app.em(), 'harbour', 100)).toBe(5);
    expect(await countAuditEntries(app.em(), { action: 'role.created' }, 2)).toBe(3);
    expect(await countDeliveryRows(app.em(), endpointId, undefined, 3)).toBe(4);
    expect(await countDeliveryRows(app.em(), endpointId, 'failed', 100)).toBe(3);
  });

  it('refuse bad filters, an unknown endpoint and a caller without the list permission, never with a 5xx', async () => {
    expect(await refusal(`rolesTotal(q: "${'x'.repeat(201)}")`)).toBe('VALIDATION_FAILED');
    expect(await refusal('auditLogTotal(action: "no.such_action")')).toBe('VALIDATION_FAILED');
    expect(await refusal('auditLogTotal(targetId: "not-a-uuid")')).toBe('VALIDATION_FAILED');
    expect(await refusal('auditLogTotal(from: "yesterday")')).toBe('VALIDATION_FAILED');
    expect(await refusal('auditLogTotal(from: "2026-11-02T00:00:00Z", to: "2026-11-01T00:00:00Z")')).toBe('VALIDATION_FAILED');
    expect(await refusal(`webhookDeliveriesTotal(id: "${endpointId}", status: "lost")`)).toBe('VALIDATION_FAILED');
    expect(await refusal('webhookDeliveriesTotal(id: "not-a-uuid")')).toBe('NOT_FOUND');
    expect(await refusal('webhookDeliveriesTotal(id: "00000000-0000-4000-8000-000000000000")')).toBe('NOT_FOUND');
    const nothing = client(app, (await seedUserWithKey(app, { grants: ['tensions:read'] })).key);
    for (const [field, missing] of [
      ['rolesTotal', 'roles:read'],
      ['auditLogTotal', 'audit:read'],
      [`webhookDeliveriesTotal(id: "${endpointId}")`, 'webhooks:read'],
    ] as const) {
      const res = await nothing.gql(`query { ${field} { count } }`);
      expect([res.body.errors?.[0]?.extensions?.code, res.body.errors?.[0]?.extensions?.missingPermission], field).toEqual(['FORBIDDEN', missing]);
    }
  });
});
