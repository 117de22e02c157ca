// The audit trail's GraphQL types (SPEC §11).
import { builder } from '../builder.js';
import { auditEntryOutput } from '../../server/application/audit/audit.js';
import { describedBy, pageDescription, pageFields } from '../described.js';
import type { Page } from '../../server/application/paging.js';
import type { AuditEntryView, AuditVocabulary } from '../../server/application/audit/audit.js';

const AuditActorType = builder.objectRef<AuditEntryView['by']>('AuditActor').implement({
  description: 'Who acted: the user (and key) of the request, `system` for the CLI, `anonymous` for a failed login.',
  fields: (t) =>
    describedBy(auditEntryOutput.shape.by, {
      kind: t.exposeString('kind', { description: 'human, agent, system or anonymous' }),
      userId: t.exposeID('userId', { nullable: true }),
      userName: t.exposeString('userName', { nullable: true }),
      apiKeyId: t.exposeID('apiKeyId', { nullable: true }),
      apiKeyName: t.exposeString('apiKeyName', { nullable: true }),
      via: t.exposeString('via', { description: 'the face: graphql, rest, mcp or cli' }),
    }),
});

const AuditTargetType = builder.objectRef<AuditEntryView['target']>('AuditTarget').implement({
  description: 'What was acted on, with its name at the time.',
  fields: (t) =>
    describedBy(auditEntryOutput.shape.target, {
      type: t.exposeString('type', { description: 'user, role, key, actor or projection' }),
      id: t.exposeID('id', { nullable: true }),
      label: t.exposeString('label', { nullable: true }),
    }),
});

const AuditEntryType = builder.objectRef<AuditEntryView>('AuditEntry').implement({
  description: 'One identity or administration action (SPEC §11). Never holds a password, hash or key.',
  fields: (t) =>
    describedBy(auditEntryOutput, {
      id: t.exposeID('id'),
      at: t.field({ type: 'DateTime', resolve: (e) => e.at }),
      action: t.exposeString('action', { description: 'e.g. user.created, key.revoked, auth.login_failed' }),
      by: t.field({ type: AuditActorType, resolve: (e) => e.by }),
      target: t.field({ type: AuditTargetType, resolve: (e) => e.target }),
      changes: t.field({ type: 'JSON', description: '{ field: { from, to } } of what changed', resolve: (e) => e.changes }),
      requestId: t.exposeString('requestId', { nullable: true }),
      clientAddress: t.exposeString('clientAddress', { nullable: true }),
    }),
});

export const AuditEntryPageType = builder.objectRef<Page<AuditEntryView>>('AuditEntryPage').implement({
  description: pageDescription('AuditEntry'),
  fields: (t) =>
    pageFields({
      data: t.field({ type: [AuditEntryType], resolve: (p) => p.data }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
});

export const AuditVocabularyType = builder.objectRef<AuditVocabulary>('AuditVocabulary').implement({
  description:
    'The values an audit entry can hold, for building filters. `action` stays a String on every face, because names like `user.created` are not GraphQL enum names.',
  fields: (t) => ({
    actions: t.stringList({
      description: 'Every action an entry can record (`AuditEntry.action`, the `action` filter of `auditLog`).',
      resolve: (v) => [...v.actions],
    }),
    targetTypes: t.stringList({
      description: 'Every kind of target (`AuditTarget.type`, the `targetType` filter of `auditLog`).',
      resolve: (v) => [...v.targetTypes],
    }),
  }),
});
