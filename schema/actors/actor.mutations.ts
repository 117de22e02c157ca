// Mutations of the actors area: parse → call → map.
import { builder } from '../builder.js';
import { ActorTypeEnum } from '../enums.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { createActor, deleteActor, updateActor } from '../../server/application/actors/index.js';
import { ActorType } from './actor.type.js';

const CreateActorInput = builder.inputType('CreateActorInput', {
  fields: (t) => ({ name: t.string({ required: true }), type: t.field({ type: ActorTypeEnum, required: true }) }),
});
const UpdateActorInput = builder.inputType('UpdateActorInput', {
  fields: (t) => ({ name: t.string({ required: true }) }),
});

builder.mutationFields((t) => ({
  createActor: t.field({
    type: ActorType,
    authScopes: { operation: 'actors.create' },
    args: { input: t.arg({ type: CreateActorInput, required: true }) },
    resolve: async (_root, { input }, context) => unwrap(await createActor(context.deps, gqlCtx(context), input)),
  }),
  updateActor: t.field({
    type: ActorType,
    authScopes: { operation: 'actors.update' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateActorInput, required: true }) },
    resolve: async (_root, { id, input }, context) => unwrap(await updateActor(context.deps, gqlCtx(context), String(id), input)),
  }),
  deleteActor: t.field({
    type: 'Boolean',
    authScopes: { operation: 'actors.delete' },
    description: 'Discards every tension of the actor, then deletes it, in one transaction.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, context) => {
      unwrap(await deleteActor(context.deps, gqlCtx(context), String(id)));
      return true;
    },
  }),
}));
