// The operator dashboard's queries (issue 36). Parse → call → map.
import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { withoutNulls } from '../args.js';
import { feedHealthOf, keyUsage, signInFailures, tensionStats, webhookHealthOf } from '../../server/application/dashboard/dashboard.js';
import { FeedHealthType, KeyUsageType, SignInFailuresType, TensionStatsType, WebhookHealthType } from './dashboard.type.js';

builder.queryFields((t) => ({
  dashboardTensions: t.field({
    type: TensionStatsType,
    authScopes: { operation: 'dashboard.tensions' },
    description: 'Tensions for the dashboard: by state and score now, per UTC week, the oldest alive, the busiest actors.',
    args: { weeks: t.arg.int({ description: 'How many weeks, the current one included (1–52; default 12).' }) },
    resolve: async (_root, args, context) => unwrap(await tensionStats(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
  dashboardKeyUsage: t.field({
    type: KeyUsageType,
    authScopes: { operation: 'dashboard.keyUsage' },
    description: 'Requests per API key per UTC day.',
    args: { days: t.arg.int({ description: 'How many UTC days, today included (1–90; default 14).' }) },
    resolve: async (_root, args, context) => unwrap(await keyUsage(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
  dashboardSignInFailures: t.field({
    type: SignInFailuresType,
    authScopes: { operation: 'dashboard.signInFailures' },
    description: 'Failed and throttled sign-ins per UTC day, from the audit trail.',
    args: { days: t.arg.int({ description: 'How many UTC days, today included (1–90; default 14).' }) },
    resolve: async (_root, args, context) => unwrap(await signInFailures(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
  dashboardFeedHealth: t.field({
    type: FeedHealthType,
    authScopes: { operation: 'dashboard.feedHealth' },
    description: 'The event feed’s newest position and how far behind each relay is.',
    resolve: async (_root, _args, context) => unwrap(await feedHealthOf(context.deps, gqlCtx(context))),
  }),
  dashboardWebhookHealth: t.field({
    type: WebhookHealthType,
    authScopes: { operation: 'dashboard.webhookHealth' },
    description: 'Webhook endpoints by health, and deliveries waiting for a retry.',
    resolve: async (_root, _args, context) => unwrap(await webhookHealthOf(context.deps, gqlCtx(context))),
  }),
}));
