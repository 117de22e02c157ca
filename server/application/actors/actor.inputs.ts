// Zod schemas of actor inputs and outputs, shared by REST, GraphQL, MCP and the OpenAPI document.
import { z } from 'zod';
import { cursorSchema, pageLimit, pageOutput } from '../paging.js';
import { expectedVersionOf } from '../versions.js';
import { nameSchema } from '../schemas.js';

export const ACTOR_TYPES = ['organization', 'individual', 'virtual', 'agent'] as const;

export const actorName = nameSchema;

const actorType = z.enum(ACTOR_TYPES);

export const createActorInput = z.strictObject({
  name: actorName.meta({ minLength: 1, maxLength: 200 }).describe("The actor's name, 1-200 characters (trimmed)."),
  type: actorType.describe(
    'What kind of market participant it is: organization, individual, virtual or agent (an agent user may be linked to an agent actor).',
  ),
});
export const updateActorInput = z.strictObject({
  name: actorName.meta({ minLength: 1, maxLength: 200 }).describe('The new name, 1-200 characters (trimmed).'),
  expectedVersion: expectedVersionOf('actor'),
});
export const listActorsQuery = z.strictObject({
  type: actorType.optional().describe('Only actors of this type.'),
  q: z.string().max(200).optional().describe('Text to find in the name (case-insensitive), at most 200 characters.'),
  limit: pageLimit,
  cursor: cursorSchema,
});

export const actorOutput = z
  .object({
    id: z.string().describe('The actor id (a UUID).'),
    name: z.string().describe('The name, 1-200 characters.'),
    type: actorType.describe('organization, individual, virtual or agent.'),
    createdAt: z.string().describe('When it was created (ISO 8601).'),
    updatedAt: z.string().describe('When it last changed (ISO 8601).'),
    tensionCount: z.number().int().describe('How many tensions (not discarded) it has.'),
    version: z.number().int().describe('1 on creation, +1 on every change; send it back as expectedVersion'),
  })
  .describe('Someone or something that experiences tensions: an organization, an individual, a virtual actor or an agent.');
export const actorPageOutput = pageOutput(actorOutput, 'actors');

export type ActorView = z.infer<typeof actorOutput>;
export type ActorPage = z.infer<typeof actorPageOutput>;
