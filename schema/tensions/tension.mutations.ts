// Mutations of the tensions area: every command generated from the command registry (one mutation and
// one input type each), and the projection rebuild.
import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { zodInputType } from '../zod-input.js';
import { ARG_DESCRIPTIONS, inputDescription } from '../described.js';
import { idempotencyKeyArg, idempotentMutation } from '../idempotency.js';
import * as tensions from '../../server/application/tensions/index.js';
import { RebuildReportType, TensionCommandPayloadType } from './tension.type.js';

for (const entry of tensions.TENSION_COMMANDS) {
  const input = zodInputType(entry.graphql.inputType, entry.input, inputDescription(entry.graphql.field));
  // Required when some field is (sense, rename, …); lifecycle commands may leave it out.
  const inputRequired = !entry.input.safeParse({}).success;
  builder.mutationField(entry.graphql.field, (t) =>
    t.field({
      type: TensionCommandPayloadType,
      description: entry.graphql.description,
      authScopes: { operation: entry.operation },
      args: {
        ...(entry.creates ? {} : { id: t.arg.id({ required: true, description: 'The tension id.' }) }),
        input: t.arg({ type: input, required: inputRequired, description: ARG_DESCRIPTIONS.input }),
        idempotencyKey: idempotencyKeyArg(t.arg),
      },
      resolve: async (_root, args, context) => {
        const { id, input: given } = args as { id?: string; input?: object | null };
        return idempotentMutation(context, entry.graphql.field, args, () =>
          tensions.runCommand(context.deps, gqlCtx(context), entry, id === undefined ? null : String(id), given ?? {}),
        );
      },
    }),
  );
}

builder.mutationField('rebuildTensionProjection', (t) =>
  t.field({
    type: RebuildReportType,
    authScopes: { operation: 'projections.rebuild' },
    description: 'Rebuilds the tensions table from the event streams without stopping writers, and reports what changed. With dryRun, only reports.',
    args: { dryRun: t.arg.boolean({ description: 'Report what a rebuild would change, changing nothing.' }) },
    resolve: async (_root, { dryRun }, context) => unwrap(await tensions.rebuildTensionProjection(context.deps, gqlCtx(context), { dryRun: dryRun ?? false })),
  }),
);
