// Mutations of the actors area: parse → call → map.
import { builder } from '../builder.js';
import { describedArgs, inputDescription, operationDescription } from '../described.js';
import { zodInputType } from '../zod-input.js';
import { createActorInput, updateActorInput } from '../../server/application/actors/actor.inputs.js';
import { gqlCtx } from '../context.js';
import { done, idempotencyKeyArg, idempotentMutation } from '../idempotency.js';
import { createActor, deleteActor, updateActor } from '../../server/application/actors/index.js';
import { ActorType } from './actor.type.js';

const CreateActorInput = zodInputType('CreateActorInput', createActorInput, inputDescription('createActor'));
const UpdateActorInput = zodInputType('UpdateActorInput', updateActorInput, inputDescription('updateActor'));

builder.mutationFields((t) => ({
  createActor: t.field({
    type: ActorType,
    authScopes: { operation: 'actors.create' },
    description: operationDescription('actors.create'),
    args: describedArgs({ input: t.arg({ type: CreateActorInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) }),
    resolve: (_root, args, context) => idempotentMutation(context, 'createActor', args, () => createActor(context.deps, gqlCtx(context), args.input)),
  }),
  updateActor: t.field({
    type: ActorType,
    authScopes: { operation: 'actors.update' },
    description: operationDescription('actors.update'),
    args: describedArgs({
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateActorInput, required: true }),
      idempotencyKey: idempotencyKeyArg(t.arg),
    }),
    resolve: (_root, args, context) =>
      idempotentMutation(context, 'updateActor', args, () => updateActor(context.deps, gqlCtx(context), String(args.id), args.input)),
  }),
  deleteActor: t.field({
    type: 'Boolean',
    authScopes: { operation: 'actors.delete' },
    description: 'Discards every tension of the actor, then deletes it, in one transaction.',
    args: describedArgs({ id: t.arg.id({ required: true }), idempotencyKey: idempotencyKeyArg(t.arg) }),
    resolve: (_root, args, context) =>
      idempotentMutation(context, 'deleteActor', args, async () => done(await deleteActor(context.deps, gqlCtx(context), String(args.id)))),
  }),
}));
