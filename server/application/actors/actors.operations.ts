// The actors area's operations (SPEC §5): market participants that tensions belong to. Every face is
// generated from these entries (server/application/operations.ts).
//
// MCP: an agent senses tensions for actors, so it may list, read and create them; renaming and deleting
// stay with humans (a delete discards every tension of the actor).
import { defineOperation, type OperationEntry } from '../operations.js';
import { actorOutput, actorPageOutput, createActorInput, listActorsQuery, updateActorInput } from './actor.inputs.js';
import { countActors, countActorsQuery, createActor, deleteActor, getActor, listActors, updateActor } from './actors.js';
import { listTotalOutput } from '../list-total.js';

const READ = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;
const TENSION_WORK = 'An agent sensing tensions needs the actors they belong to: reading and creating one widens no rights.';
const NOT_FOR_AGENTS =
  'A rename is bookkeeping for humans, and a delete discards every tension of the actor in one go: neither is tension work an agent needs.';

export const ACTOR_OPERATIONS: OperationEntry[] = [
  defineOperation({
    operation: 'actors.count',
    run: (deps, ctx, _p, input) => countActors(deps, ctx, input),
    input: countActorsQuery,
    output: listTotalOutput,
    // GraphQL only: the REST facade keeps exactly the contract's paths (SPEC §5), which have no count
    rest: null,
    graphql: {
      kind: 'query',
      field: 'actorsTotal',
      type: 'ListTotal',
      args: 'flat',
      description:
        'How many actors the same filters as the actors list match: exact up to 10,000, past it 10,000 with exact false. Counted with a bound, never over every row.',
    },
    mcp: { exposed: false, why: 'A total for the admin list\'s "1–20 of N"; list_actors pages are what an agent reads.' },
  }),
  defineOperation({
    operation: 'actors.list',
    run: (deps, ctx, _p, input) => listActors(deps, ctx, input),
    input: listActorsQuery,
    output: actorPageOutput,
    rest: {
      method: 'get',
      path: '/actors',
      status: 200,
      tag: 'actors',
      input: 'query',
      summary: 'List actors',
      description: 'Actors by name, a page at a time, each with its number of tensions.',
    },
    graphql: { kind: 'query', field: 'actors', type: 'ActorPage', args: 'flat' },
    mcp: {
      exposed: true,
      why: TENSION_WORK,
      name: 'list_actors',
      title: 'List actors',
      description:
        'Lists market actors (organizations, individuals, virtual actors, agents) that tensions belong to. Filters: type, q; pages with limit and cursor.',
      annotations: READ,
    },
  }),
  defineOperation({
    operation: 'actors.create',
    run: (deps, ctx, _p, input) => createActor(deps, ctx, input),
    input: createActorInput,
    output: actorOutput,
    audit: ['actor.created'],
    rest: {
      method: 'post',
      path: '/actors',
      status: 201,
      tag: 'actors',
      input: 'body',
      summary: 'Create an actor',
      description: 'Creates an actor, which tensions can then be sensed for. An actor of type agent can be linked to an agent user.',
    },
    graphql: { kind: 'mutation', field: 'createActor', type: 'Actor', args: 'input', inputType: 'CreateActorInput' },
    mcp: {
      exposed: true,
      why: TENSION_WORK,
      name: 'create_actor',
      title: 'Create an actor',
      description:
        'Creates a market actor (name 1-200 characters; type organization, individual, virtual or agent), so tensions can be sensed for it. ' +
        'Returns the actor as GET /actors/{id} does. Not idempotent: calling it twice creates two actors; pass idempotencyKey to retry safely.',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    example: { name: 'Org', type: 'organization' },
  }),
  defineOperation({
    operation: 'actors.get',
    run: (deps, ctx, p) => getActor(deps, ctx, p.id),
    output: actorOutput,
    errors: ['actor_not_found'],
    rest: {
      method: 'get',
      path: '/actors/:id',
      status: 200,
      tag: 'actors',
      input: 'none',
      summary: 'Get an actor',
      description: 'One actor, with its number of tensions.',
    },
    graphql: { kind: 'query', field: 'actor', type: 'Actor', nullable: true, args: 'none' },
    mcp: {
      exposed: true,
      why: TENSION_WORK,
      name: 'get_actor',
      title: 'Get an actor',
      description: 'Returns one actor (id, name, type, tensionCount) by id. Error actor_not_found: no such actor.',
      annotations: READ,
      params: { id: 'The actor id (a UUID). An id that is not a UUID is actor_not_found.' },
    },
  }),
  defineOperation({
    operation: 'actors.update',
    run: (deps, ctx, p, input) => updateActor(deps, ctx, p.id, input),
    input: updateActorInput,
    output: actorOutput,
    errors: ['actor_not_found', 'version_conflict'],
    audit: ['actor.updated'],
    rest: {
      method: 'patch',
      path: '/actors/:id',
      status: 200,
      tag: 'actors',
      input: 'body',
      summary: 'Rename an actor',
      description:
        'Sets the name; the type cannot change. The same name changes nothing. With `expectedVersion`, writes only if the actor is still at that version (409 version_conflict otherwise).',
    },
    graphql: { kind: 'mutation', field: 'updateActor', type: 'Actor', args: 'input', inputType: 'UpdateActorInput' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS },
    example: { name: 'Org 2' },
  }),
  defineOperation({
    operation: 'actors.delete',
    run: (deps, ctx, p) => deleteActor(deps, ctx, p.id),
    errors: ['actor_not_found'],
    audit: ['actor.deleted'],
    rest: {
      method: 'delete',
      path: '/actors/:id',
      status: 204,
      tag: 'actors',
      input: 'none',
      summary: 'Delete an actor',
      description: 'Deletes the actor and discards all its tensions, in one transaction; their histories stay readable.',
    },
    graphql: {
      kind: 'mutation',
      field: 'deleteActor',
      type: 'Boolean',
      args: 'none',
      description: 'Discards every tension of the actor, then deletes it, in one transaction.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS },
  }),
];
