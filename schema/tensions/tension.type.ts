// GraphQL types of the tensions area: Tension, its history entries, pages, command payload, rebuild report.
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import { builder } from '../builder.js';
import { historyEntryOutput, rebuildReportOutput, tensionOutput } from '../../server/application/tensions/tension.inputs.js';
import { describedBy, pageDescription, pageFields } from '../described.js';
import { gqlCtx, type GraphQLContext } from '../context.js';
import { CallerKindEnum, TensionCommandEnum, TensionEventTypeEnum, TensionStateEnum, UserStatusEnum, ViaEnum } from '../enums.js';
import { userStatuses, type UserView } from '../../server/application/users/user.read.js';
import type { CommandResult, HistoryEntry, PastTensionView, RebuildReport, TensionChanges, TensionView } from '../../server/application/tensions/index.js';
import { allowedCommandsOf } from '../../server/application/tensions/index.js';

interface Party {
  id: string;
  name: string;
  type: string;
}

export const TensionPartyType = builder.objectRef<Party>('TensionParty').implement({
  description: 'The actor a tension belongs to: id, name and type.',
  fields: (t) => describedBy(tensionOutput.shape.actor, { id: t.exposeID('id'), name: t.exposeString('name'), type: t.exposeString('type') }),
});

/** Per request: the statuses of every lead a response names, read in one statement (no query per row). */
const leadStatuses = createContextCache(
  (context: GraphQLContext) =>
    new DataLoader<string, UserView['status'] | null>(async (ids) => {
      const found = await userStatuses(context.deps, gqlCtx(context), ids);
      return ids.map((id) => (found.ok ? (found.value.get(id) ?? null) : null));
    }),
);

const TensionLeadType = builder.objectRef<Party>('TensionLead').implement({
  description: "A tension's lead user: id, name and type, and whether they are still active.",
  fields: (t) =>
    describedBy(tensionOutput.shape.lead, {
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      type: t.exposeString('type'),
      status: t.field({
        type: UserStatusEnum,
        nullable: true,
        description: 'active, or deactivated (cannot sign in, and cannot be chosen as a new lead); null for a caller without users:read.',
        resolve: (lead, _args, context) => leadStatuses(context).load(lead.id),
      }),
    }),
});

const TensionAsOfType = builder.objectRef<{ version: number; occurredAt: string }>('TensionAsOf').implement({
  description: 'The point of its stream a read of the past shows: the version and when it was recorded.',
  fields: (t) => ({
    version: t.exposeInt('version', { description: 'The version read.' }),
    occurredAt: t.field({ type: 'DateTime', description: 'When that version was recorded.', resolve: (x) => x.occurredAt }),
  }),
});

export const TensionType = builder.objectRef<TensionView & { asOf?: PastTensionView['asOf'] }>('Tension').implement({
  description: 'A gap between the current state and a desired future, experienced by an actor (the projection of its stream).',
  fields: (t) =>
    describedBy(tensionOutput, {
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      currentContext: t.exposeString('currentContext', { nullable: true }),
      potentialFuture: t.exposeString('potentialFuture', { nullable: true }),
      score: t.exposeInt('score'),
      state: t.expose('state', { type: TensionStateEnum }),
      actorId: t.exposeID('actorId'),
      actor: t.field({ type: TensionPartyType, resolve: (x) => x.actor }),
      leadUserId: t.exposeID('leadUserId', { nullable: true }),
      lead: t.field({ type: TensionLeadType, nullable: true, resolve: (x) => x.lead }),
      version: t.exposeInt('version'),
      createdAt: t.field({ type: 'DateTime', resolve: (x) => x.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (x) => x.updatedAt }),
      allowedCommands: t.field({
        type: [TensionCommandEnum],
        description:
          'The commands that would change this tension now, by verb (rename, rescore, revise, lead, reassign, resolve, drop, reopen, revive, discard), as the server decides them; a client shows these instead of keeping its own copy of the lifecycle rules. Empty on a read of the past, which no command changes.',
        resolve: (x) => (x.asOf ? [] : allowedCommandsOf(x)),
      }),
      asOf: t.field({
        type: TensionAsOfType,
        nullable: true,
        description:
          'On a read of the past (asOfVersion / asOf): the version shown and when it was recorded; actor and lead names are those its events recorded then. Null on a read of now.',
        resolve: (x) => x.asOf ?? null,
      }),
    }),
});

export const HistoryAuthorType = builder.objectRef<HistoryEntry['by']>('HistoryAuthor').implement({
  description: 'Who made a change, through which face, and with which API key.',
  fields: (t) =>
    describedBy(historyEntryOutput.shape.by, {
      kind: t.expose('kind', { type: CallerKindEnum }),
      userId: t.exposeID('userId', { nullable: true }),
      userName: t.exposeString('userName', { nullable: true }),
      apiKeyName: t.exposeString('apiKeyName', { nullable: true }),
      via: t.expose('via', { type: ViaEnum }),
    }),
});

export const HistoryEntryType = builder.objectRef<HistoryEntry>('HistoryEntry').implement({
  description: 'One event of a tension stream, rendered for people (SPEC §4).',
  fields: (t) =>
    describedBy(historyEntryOutput, {
      version: t.exposeInt('version'),
      type: t.field({ type: TensionEventTypeEnum, resolve: (x) => x.type }),
      occurredAt: t.field({ type: 'DateTime', resolve: (x) => x.occurredAt }),
      by: t.field({ type: HistoryAuthorType, resolve: (x) => x.by }),
      summary: t.exposeString('summary'),
      summaryKey: t.exposeString('summaryKey'),
      summaryParams: t.field({ type: 'JSON', resolve: (x) => x.summaryParams }),
      data: t.field({ type: 'JSON', resolve: (x) => x.data }),
    }),
});

export const TensionPageType = builder.objectRef<{ data: TensionView[]; nextCursor: string | null }>('TensionPage').implement({
  description: pageDescription('Tension'),
  fields: (t) =>
    pageFields({
      data: t.field({ type: [TensionType], resolve: (x) => x.data }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
});

export const ListTotalType = builder.objectRef<{ count: number; exact: boolean }>('ListTotal').implement({
  description: 'How many items a list\'s filters match: exact up to 10,000; past it, count is 10,000 and exact is false ("10,000+").',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'The number of matching items, or 10,000 when there are more.' }),
    exact: t.exposeBoolean('exact', {
      description:
        'false when more items may match than count: past 10,000, or a tension search of one or two characters counted over part of the list (count is then at least).',
    }),
  }),
});

export const HistoryPageType = builder.objectRef<{ data: HistoryEntry[]; nextCursor: string | null }>('HistoryPage').implement({
  description: pageDescription('History'),
  fields: (t) =>
    pageFields({
      data: t.field({ type: [HistoryEntryType], resolve: (x) => x.data }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
});

export const TensionCommandPayloadType = builder.objectRef<CommandResult>('TensionCommandPayload').implement({
  description: 'The tension after the command (null after a discard) and the appended history entry (null for a no-op).',
  fields: (t) => ({
    tension: t.field({ type: TensionType, nullable: true, description: 'The tension after the command; null after a discard.', resolve: (x) => x.tension }),
    event: t.field({
      type: HistoryEntryType,
      nullable: true,
      description: 'The history entry the command appended; null when nothing changed (then nothing was written).',
      resolve: (x) => x.event,
    }),
  }),
});

export const RebuildReportType = builder.objectRef<RebuildReport>('RebuildReport').implement({
  description: 'What a projection rebuild did (or, in a dry run, would do).',
  fields: (t) =>
    describedBy(rebuildReportOutput, {
      streams: t.exposeInt('streams'),
      events: t.exposeInt('events'),
      inserted: t.exposeInt('inserted'),
      updated: t.exposeInt('updated'),
      deleted: t.exposeInt('deleted'),
      unchanged: t.exposeInt('unchanged'),
      durationMs: t.exposeInt('durationMs'),
      dryRun: t.exposeBoolean('dryRun'),
    }),
});

const TensionFieldChangeType = builder.objectRef<TensionChanges['changes'][number]>('TensionFieldChange').implement({
  description: 'One field of a tension whose value differs between two versions.',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'name, currentContext, potentialFuture, score, state, actor or lead.' }),
    from: t.field({ type: 'JSON', nullable: true, description: 'Its value at the first version (actor and lead: {id, name, type}).', resolve: (x) => x.from }),
    to: t.field({ type: 'JSON', nullable: true, description: 'Its value at the second version.', resolve: (x) => x.to }),
  }),
});

export const TensionChangesType = builder.objectRef<TensionChanges>('TensionChanges').implement({
  description: 'What changed in a tension between two versions (SPEC §15).',
  fields: (t) => ({
    from: t.exposeInt('from', { description: 'The version compared from.' }),
    to: t.exposeInt('to', { description: 'The version compared to.' }),
    changes: t.field({
      type: [TensionFieldChangeType],
      description: 'Every field whose value differs between the two versions, in the order of the read shape; a field changed and changed back is not listed.',
      resolve: (x) => x.changes,
    }),
  }),
});
