// Queries of the actors area: parse → call → map.
import { builder } from '../builder.js';
import { listActorsQuery } from '../../server/application/actors/actor.inputs.js';
import { describedArgs, listLimit, operationDescription } from '../described.js';
import { ActorTypeEnum } from '../enums.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { withoutNulls } from '../args.js';
import { getActor, listActors } from '../../server/application/actors/index.js';
import { ActorPageType, ActorType } from './actor.type.js';

builder.queryFields((t) => ({
  actors: t.field({
    type: ActorPageType,
    authScopes: { operation: 'actors.list' },
    description: operationDescription('actors.list'),
    ...listLimit(listActorsQuery),
    args: describedArgs({ type: t.arg({ type: ActorTypeEnum }), q: t.arg.string(), limit: t.arg.int(), cursor: t.arg.string() }, listActorsQuery),
    resolve: async (_root, args, context) => unwrap(await listActors(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
  actor: t.field({
    type: ActorType,
    nullable: true,
    authScopes: { operation: 'actors.get' },
    description: operationDescription('actors.get'),
    args: describedArgs({ id: t.arg.id({ required: true }) }),
    resolve: async (_root, args, context) => unwrap(await getActor(context.deps, gqlCtx(context), String(args.id))),
  }),
}));
