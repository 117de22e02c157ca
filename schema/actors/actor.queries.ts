// Queries of the actors area: parse → call → map.
import { builder } from '../builder.js';
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
    args: { type: t.arg({ type: ActorTypeEnum }), q: t.arg.string(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_root, args, context) => unwrap(await listActors(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
  actor: t.field({
    type: ActorType,
    nullable: true,
    authScopes: { operation: 'actors.get' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => unwrap(await getActor(context.deps, gqlCtx(context), String(args.id))),
  }),
}));
