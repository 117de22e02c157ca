// The user read shape (SPEC §2): never a password or its hash.
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import { userRowsById, userStatusesById, type UserRow } from '../../persistence/users.js';
import { reader } from '../../persistence/transaction.js';
import { ok, type Result } from '../../domain/errors.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { roleOutput, rolesOfUsers, type RoleView } from '../roles/role.read.js';

export interface UserView {
  id: string;
  type: 'human' | 'agent';
  email: string;
  name: string;
  status: 'active' | 'deactivated';
  linkedActorId: string | null;
  linkedActor: { id: string; name: string; type: string } | null;
  roles: RoleView[];
  /** 1 on creation, +1 on every change (SPEC §2) */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** UserView as a schema, for the OpenAPI document. */
export const userOutput = z
  .object({
    id: z.string().describe('The user id (a UUID).'),
    type: z.enum(['human', 'agent']).describe('human (signs in with a password) or agent (calls with API keys).'),
    email: z.string().describe('The email (lower-case).'),
    name: z.string().describe('The display name.'),
    status: z.enum(['active', 'deactivated']).describe('A deactivated user cannot sign in, and their keys are revoked.'),
    linkedActorId: z.string().nullable().describe('Agents: the actor they act as; null when not linked.'),
    linkedActor: z
      .object({
        id: z.string().describe("The actor's id."),
        name: z.string().describe("The actor's name."),
        type: z.string().describe("The actor's type (agent)."),
      })
      .nullable()
      .describe('That actor, for display; null when not linked.'),
    roles: z.array(roleOutput).describe('The roles the user holds.'),
    version: z.number().int().describe('1 on creation, +1 on every change; send it back as expectedVersion'),
    createdAt: z.string().describe('When the user was created (ISO 8601).'),
    updatedAt: z.string().describe('When the user last changed (ISO 8601).'),
  })
  .describe('A human who signs in, or an agent that calls with API keys.') satisfies z.ZodType<UserView>;

const iso = (v: Date | string) => new Date(v).toISOString();

export async function toUserViews(em: EntityManager, rows: UserRow[]): Promise<UserView[]> {
  const roles = await rolesOfUsers(
    em,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    email: r.email,
    name: r.name,
    status: r.status,
    linkedActorId: r.linked_actor_id,
    linkedActor: r.linked_actor_id ? { id: r.linked_actor_id, name: r.actor_name!, type: r.actor_type! } : null,
    roles: roles.get(r.id) ?? [],
    version: r.version,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

export async function loadUser(em: EntityManager, id: string): Promise<UserView | null> {
  const rows = await userRowsById(em, [id]);
  const [view] = await toUserViews(em, rows);
  return view ?? null;
}

/**
 * The status of each of these users, for marking a deactivated one where another read names them (a
 * tension's lead): one statement for all of them. Needs users:read, as reading the users does.
 */
export async function userStatuses(deps: Deps, ctx: Ctx, ids: readonly string[]): Promise<Result<Map<string, UserView['status']>>> {
  const denied = authorize(ctx, 'users.get');
  if (denied) return denied;
  return ok(await userStatusesById(reader(deps.orm), ids));
}
