// The operator dashboard's GraphQL types (issue 36).
import { builder } from '../builder.js';
import type { FeedHealth, KeyUsage, SignInFailures, TensionStats, TensionWeek } from '../../server/application/dashboard/dashboard.js';
import type { WebhookHealth } from '../../server/persistence/dashboard.js';

type Stats = TensionStats;

const StateCountType = builder.objectRef<Stats['byState'][number]>('TensionStateCount').implement({
  description: 'How many tensions are in one state now.',
  fields: (t) => ({
    state: t.exposeString('state', { description: 'alive, resolved or stale (dropped); discarded tensions are not counted' }),
    count: t.exposeInt('count', { description: 'how many tensions are in this state' }),
  }),
});

const ScoreCountType = builder.objectRef<Stats['aliveByScore'][number]>('TensionScoreCount').implement({
  description: 'How many alive tensions have one score now.',
  fields: (t) => ({
    score: t.exposeInt('score', { description: 'the score, 1–10' }),
    count: t.exposeInt('count', { description: 'how many alive tensions have it' }),
  }),
});

const WeekType = builder.objectRef<TensionWeek>('TensionWeek').implement({
  description: 'What happened to tensions in one UTC week (Monday to Sunday), counted from their events.',
  fields: (t) => ({
    weekStart: t.exposeString('weekStart', { description: 'the Monday the week starts on (YYYY-MM-DD, UTC)' }),
    sensed: t.exposeInt('sensed', { description: 'tensions created (sensed) that week' }),
    resolved: t.exposeInt('resolved', { description: 'tensions resolved that week' }),
    dropped: t.exposeInt('dropped', { description: 'tensions dropped that week' }),
    reopened: t.exposeInt('reopened', { description: 'tensions reopened that week' }),
    discarded: t.exposeInt('discarded', { description: 'tensions discarded that week' }),
    revived: t.exposeInt('revived', { description: 'tensions revived that week' }),
    averageSensedScore: t.exposeFloat('averageSensedScore', { nullable: true, description: 'mean score of the tensions sensed that week; null when none was' }),
  }),
});

const OldestType = builder.objectRef<Stats['oldestAlive'][number]>('OldestAliveTension').implement({
  description: 'An alive tension among the oldest.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'the tension id' }),
    name: t.exposeString('name', { description: 'its name' }),
    score: t.exposeInt('score', { description: 'its score' }),
    actorName: t.exposeString('actorName', { description: 'the name of the actor experiencing it' }),
    createdAt: t.field({ type: 'DateTime', description: 'when it was sensed', resolve: (r) => r.createdAt }),
  }),
});

const ActorLoadType = builder.objectRef<Stats['actorLoad'][number]>('ActorLoad').implement({
  description: 'An actor and how many tensions it carries.',
  fields: (t) => ({
    actorId: t.exposeID('actorId', { description: 'the actor id' }),
    actorName: t.exposeString('actorName', { description: 'the actor name' }),
    alive: t.exposeInt('alive', { description: 'its alive tensions' }),
    total: t.exposeInt('total', { description: 'all its tensions that are not discarded' }),
  }),
});

export const TensionStatsType = builder.objectRef<Stats>('TensionStats').implement({
  description: 'Tensions for the dashboard: now by state and score, per week, the oldest alive, the busiest actors.',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', description: 'start of the period (Monday 00:00 UTC of its first week)', resolve: (s) => s.from }),
    to: t.field({ type: 'DateTime', description: 'end of the period, exclusive (tomorrow 00:00 UTC)', resolve: (s) => s.to }),
    byState: t.field({ type: [StateCountType], description: 'tensions now, by state', resolve: (s) => s.byState }),
    aliveByScore: t.field({ type: [ScoreCountType], description: 'alive tensions now, by score', resolve: (s) => s.aliveByScore }),
    weeks: t.field({ type: [WeekType], description: 'one entry per week of the period, oldest first', resolve: (s) => s.weeks }),
    oldestAlive: t.field({ type: [OldestType], description: 'the 10 oldest alive tensions, oldest first', resolve: (s) => s.oldestAlive }),
    actorLoad: t.field({ type: [ActorLoadType], description: 'the 10 actors with the most alive tensions', resolve: (s) => s.actorLoad }),
  }),
});

const KeySeriesType = builder.objectRef<KeyUsage['keys'][number]>('KeyUsageSeries').implement({
  description: 'One API key and its requests per day.',
  fields: (t) => ({
    keyId: t.exposeID('keyId', { description: 'the key id' }),
    keyName: t.exposeString('keyName', { description: 'the key name' }),
    prefix: t.exposeString('prefix', { description: 'the key prefix' }),
    userId: t.exposeID('userId', { description: 'the key owner' }),
    userName: t.exposeString('userName', { description: 'the key owner name' }),
    total: t.exposeInt('total', { description: 'requests in the period' }),
    requests: t.exposeIntList('requests', { description: 'requests per day, in the order of KeyUsage.days' }),
  }),
});

export const KeyUsageType = builder.objectRef<KeyUsage>('KeyUsage').implement({
  description:
    'Requests per API key per UTC day, counted where the key’s lastUsedAt is written (at most a minute behind per instance; requests a stopped instance had not written yet are lost).',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', description: 'start of the period (00:00 UTC)', resolve: (u) => u.from }),
    to: t.field({ type: 'DateTime', description: 'end of the period, exclusive', resolve: (u) => u.to }),
    days: t.exposeStringList('days', { description: 'the days of the period (YYYY-MM-DD), oldest first' }),
    keys: t.field({ type: [KeySeriesType], description: 'the 20 keys with the most requests in the period, most first', resolve: (u) => u.keys }),
  }),
});

const SignInDayType = builder.objectRef<SignInFailures['days'][number]>('SignInFailureDay').implement({
  description: 'Failed sign-ins on one UTC day, from the audit trail.',
  fields: (t) => ({
    day: t.exposeString('day', { description: 'the day (YYYY-MM-DD)' }),
    failed: t.exposeInt('failed', { description: 'sign-ins refused for a wrong email, password or code (auth.login_failed)' }),
    throttled: t.exposeInt('throttled', { description: 'sign-ins refused by the throttle (auth.login_throttled)' }),
  }),
});

export const SignInFailuresType = builder.objectRef<SignInFailures>('SignInFailures').implement({
  description: 'Failed sign-ins per UTC day.',
  fields: (t) => ({
    from: t.field({ type: 'DateTime', description: 'start of the period (00:00 UTC)', resolve: (u) => u.from }),
    to: t.field({ type: 'DateTime', description: 'end of the period, exclusive', resolve: (u) => u.to }),
    days: t.field({ type: [SignInDayType], description: 'one entry per day, oldest first', resolve: (u) => u.days }),
  }),
});

const RelayType = builder.objectRef<FeedHealth['relays'][number]>('RelayHealth').implement({
  description: 'A relay of the event feed (the NATS JetStream relay) and how far behind it is.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'the relay name' }),
    behind: t.exposeInt('behind', { description: 'feed positions between the newest event and the last one it published' }),
    published: t.exposeInt('published', { description: 'events it has published' }),
    leaseActive: t.exposeBoolean('leaseActive', { description: 'whether a running relay holds its lease now' }),
    updatedAt: t.field({ type: 'DateTime', description: 'when it last moved on', resolve: (r) => r.updatedAt }),
  }),
});

export const FeedHealthType = builder.objectRef<FeedHealth>('FeedHealth').implement({
  description: 'The event feed and its relays.',
  fields: (t) => ({
    headPosition: t.exposeInt('headPosition', { description: 'the newest event position (0 when there is none)' }),
    relays: t.field({ type: [RelayType], description: 'every relay that has run on this database', resolve: (h) => h.relays }),
  }),
});

export const WebhookHealthType = builder.objectRef<WebhookHealth>('WebhookHealth').implement({
  description: 'Webhook endpoints by health.',
  fields: (t) => ({
    endpoints: t.exposeInt('endpoints', { description: 'all endpoints' }),
    enabled: t.exposeInt('enabled', { description: 'endpoints that receive events' }),
    failing: t.exposeInt('failing', { description: 'enabled endpoints whose deliveries fail now' }),
    disabled: t.exposeInt('disabled', { description: 'endpoints disabled by hand or for failing' }),
    retrying: t.exposeInt('retrying', { description: 'deliveries waiting for a retry' }),
  }),
});
