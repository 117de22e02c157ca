// Zod schemas of actor inputs and outputs, shared by REST, GraphQL, MCP and the OpenAPI document.
import { z } from 'zod';
import { pageCursor, pageLimit } from '../tensions/tension.inputs.js';
import { expectedVersionOf } from '../versions.js';
import { nameSchema } from '../schemas.js';

export const ACTOR_TYPES = ['organization', 'individual', 'virtual', 'agent'] as const;

export const actorName = nameSchema;

export const createActorInput = z.strictObject({
  name: actorName.meta({ minLength: 1, maxLength: 200 }).describe('The actor\'s name, 1-200 characters (trimmed).'),
  type: z.enum(ACTOR_TYPES).describe('What kind of market participant it is: organization, individual, virtual or agent.'),
});
export const updateActorInput = z.strictObject({
  name: actorName.meta({ minLength: 1, maxLength: 200 }).describe('The new name, 1-200 characters (trimmed).'),
  expectedVersion: expectedVersionOf('actor'),
});
export const listActorsQuery = z.strictObject({
  type: z.enum(ACTOR_TYPES).optional().describe('Only actors of this type.'),
  q: z.string().max(200).optional().describe('Text to find in the name (case-insensitive), at most 200 characters.'),
  limit: pageLimit,
  cursor: pageCursor,
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
