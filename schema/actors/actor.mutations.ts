// Mutations of the actors area: parse → call → map.
import { builder } from '../builder.js';
import { zodInputType } from '../zod-input.js';
import { createActorInput, updateActorInput } from '../../server/application/actors/actor.inputs.js';
import { gqlCtx } from '../context.js';
import { done, idempotencyKeyArg, idempotentMutation } from '../idempotency.js';
import { createActor, deleteActor, updateActor } from '../../server/application/actors/index.js';
import { ActorType } from './actor.type.js';

const CreateActorInput = zodInputType('CreateActorInput', createActorInput);
const UpdateActorInput = zodInputType('UpdateActorInput', updateActorInput);

builder.mutationFields((t) => ({
  createActor: t.field({
    type: ActorType,
    authScopes: { operation: 'actors.create' },
    args: { input: t.arg({ type: CreateActorInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_root, args, context) => idempotentMutation(context, 'createActor', args, () => createActor(context.deps, gqlCtx(context), args.input)),
  }),
  updateActor: t.field({
    type: ActorType,
    authScopes: { operation: 'actors.update' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateActorInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_root, args, context) =>
      idempotentMutation(context, 'updateActor', args, () => updateActor(context.deps, gqlCtx(context), String(args.id), args.input)),
  }),
  deleteActor: t.field({
    type: 'Boolean',
    authScopes: { operation: 'actors.delete' },
    description: 'Discards every tension of the actor, then deletes it, in one transaction.',
    args: { id: t.arg.id({ required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_root, args, context) =>
      idempotentMutation(context, 'deleteActor', args, async () => done(await deleteActor(context.deps, gqlCtx(context), String(args.id)))),
  }),
}));
