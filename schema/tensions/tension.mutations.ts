// Mutations of the tensions area: one per command, each parse → call → map.
import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import type { Operation } from '../../server/application/permission-table.js';
import type { Ctx, Deps } from '../../server/application/context.js';
import type { Result } from '../../server/domain/errors.js';
import * as tensions from '../../server/application/tensions/index.js';
import { RebuildReportType, TensionCommandPayloadType } from './tension.type.js';

const expectedVersion = (t: any) => t.int({ description: 'refuse with VERSION_CONFLICT unless the tension is at this version' });

const SenseTensionInput = builder.inputType('SenseTensionInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    actorId: t.id({ required: true }),
    currentContext: t.string(),
    potentialFuture: t.string(),
    score: t.int({ description: '1–10, default 5' }),
    leadUserId: t.id(),
    expectedVersion: expectedVersion(t),
  }),
});
const RenameTensionInput = builder.inputType('RenameTensionInput', {
  fields: (t) => ({ name: t.string({ required: true }), expectedVersion: expectedVersion(t) }),
});
const RescoreTensionInput = builder.inputType('RescoreTensionInput', {
  fields: (t) => ({ score: t.int({ required: true }), expectedVersion: expectedVersion(t) }),
});
const ReviseTensionContextInput = builder.inputType('ReviseTensionContextInput', {
  description: 'Give currentContext, potentialFuture or both; null clears a field.',
  fields: (t) => ({ currentContext: t.string(), potentialFuture: t.string(), expectedVersion: expectedVersion(t) }),
});
const SetTensionLeadInput = builder.inputType('SetTensionLeadInput', {
  description: 'leadUserId null unassigns the lead.',
  fields: (t) => ({ leadUserId: t.id(), expectedVersion: expectedVersion(t) }),
});
const ReassignTensionInput = builder.inputType('ReassignTensionInput', {
  fields: (t) => ({ actorId: t.id({ required: true }), expectedVersion: expectedVersion(t) }),
});

builder.mutationField('senseTension', (t) =>
  t.field({
    type: TensionCommandPayloadType,
    authScopes: { operation: 'tensions.sense' },
    args: { input: t.arg({ type: SenseTensionInput, required: true }) },
    resolve: async (_root, { input }, context) => unwrap(await tensions.senseTension(context.deps, gqlCtx(context), input)),
  }),
);

type Command = (deps: Deps, ctx: Ctx, id: string, input: unknown) => Promise<Result<tensions.CommandResult>>;

function commandField(name: string, op: Operation, input: any, call: Command, inputRequired = true) {
  builder.mutationField(name, (t) =>
    t.field({
      type: TensionCommandPayloadType,
      authScopes: { operation: op },
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: input, required: inputRequired }) },
      resolve: async (_root, args, context) =>
        unwrap(await call(context.deps, gqlCtx(context), String(args.id), (args.input as object | null) ?? {})),
    }),
  );
}

commandField('renameTension', 'tensions.rename', RenameTensionInput, tensions.renameTension);
commandField('rescoreTension', 'tensions.rescore', RescoreTensionInput, tensions.rescoreTension);
commandField('reviseTensionContext', 'tensions.revise', ReviseTensionContextInput, tensions.reviseTensionContext);
// The lead input is required so that `leadUserId` is always stated (null unassigns).
commandField('setTensionLead', 'tensions.lead', SetTensionLeadInput, tensions.setTensionLead);
commandField('reassignTension', 'tensions.reassign', ReassignTensionInput, tensions.reassignTension);

const LIFECYCLE = [
  ['resolveTension', 'ResolveTensionInput', 'tensions.resolve', tensions.resolveTension],
  ['dropTension', 'DropTensionInput', 'tensions.drop', tensions.dropTension],
  ['reopenTension', 'ReopenTensionInput', 'tensions.reopen', tensions.reopenTension],
  ['reviveTension', 'ReviveTensionInput', 'tensions.revive', tensions.reviveTension],
] as const;
for (const [field, inputName, op, call] of LIFECYCLE) {
  const input = builder.inputType(inputName, { fields: (t) => ({ expectedVersion: expectedVersion(t) }) });
  commandField(field, op, input, call, false);
}

builder.mutationField('discardTension', (t) =>
  t.field({
    type: TensionCommandPayloadType,
    authScopes: { operation: 'tensions.discard' },
    args: { id: t.arg.id({ required: true }), expectedVersion: t.arg.int() },
    resolve: async (_root, { id, expectedVersion: v }, context) =>
      unwrap(await tensions.discardTension(context.deps, gqlCtx(context), String(id), { expectedVersion: v })),
  }),
);

builder.mutationField('rebuildTensionProjection', (t) =>
  t.field({
    type: RebuildReportType,
    authScopes: { operation: 'projections.rebuild' },
    args: { dryRun: t.arg.boolean() },
    resolve: async (_root, { dryRun }, context) =>
      unwrap(await tensions.rebuildTensionProjection(context.deps, gqlCtx(context), { dryRun: dryRun ?? false })),
  }),
);
