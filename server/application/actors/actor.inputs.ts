// Zod schemas of actor inputs and outputs, shared by REST, GraphQL, MCP and the OpenAPI document.
import { z } from 'zod';
import { cursorParam } from '../paging.js';
import { intParam } from '../tensions/tension.inputs.js';
import { expectedVersionOf } from '../versions.js';
import { nameSchema } from '../schemas.js';

export const ACTOR_TYPES = ['organization', 'individual', 'virtual', 'agent'] as const;

export const actorName = nameSchema;

export const createActorInput = z.strictObject({ name: actorName, type: z.enum(ACTOR_TYPES) });
export const updateActorInput = z.strictObject({ name: actorName, expectedVersion: expectedVersionOf('actor') });
export const listActorsQuery = z.strictObject({
  type: z.enum(ACTOR_TYPES).optional(),
  q: z.string().max(200).optional(),
  limit: intParam(1, 100).default(20),
  cursor: cursorParam.optional(),
});

export const actorOutput = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(ACTOR_TYPES),
  createdAt: z.string(),
  updatedAt: z.string(),
  tensionCount: z.number().int(),
  version: z.number().int().describe('1 on creation, +1 on every change; send it back as expectedVersion'),
});
export const actorPageOutput = z.object({ data: z.array(actorOutput), nextCursor: z.string().nullable() });

export type ActorView = z.infer<typeof actorOutput>;
export type ActorPage = z.infer<typeof actorPageOutput>;
