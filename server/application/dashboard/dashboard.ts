// The operator dashboard (issue 36): tensions by state, score and week, the oldest alive ones and the actors
// carrying most; requests per API key per day; sign-in failures; feed, relay and webhook health. Each part is
// its own operation with its own permission, so an operator sees the parts their roles allow. Periods are
// whole UTC days (weeks start on Monday) ending with today; the figures come from rollups and indexes
// (server/persistence/dashboard.ts), so a view costs the same at a million tensions.
import { z } from 'zod';
import { ok, type Result } from '../../domain/errors.js';
import {
  actorLoad,
  feedHealth,
  keyUseDays,
  oldestAliveTensions,
  signInFailureDays,
  tensionFlows,
  tensionTotals,
  webhookHealth,
  type ActorLoad,
  type RelayHealth,
  type WebhookHealth,
} from '../../persistence/dashboard.js';
import { reader } from '../../persistence/transaction.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { parseInput } from '../validate.js';

const DAY_MS = 86_400_000;
/** how many rows the oldest-tensions and actor-load tables and the key-usage series hold at most */
export const DASHBOARD_TOP = 10;
export const KEY_SERIES_MAX = 20;

export const tensionStatsInput = z
  .object({ weeks: z.number().int().min(1).max(52).default(12).describe('How many weeks, the current one included (1–52; default 12).') })
  .strict();
export const daysInput = z
  .object({ days: z.number().int().min(1).max(90).default(14).describe('How many UTC days, today included (1–90; default 14).') })
  .strict();

const isoDay = (d: Date): string => d.toISOString().slice(0, 10);
const startOfUtcDay = (d: Date): Date => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
/** The UTC days of a period of `days` ending today, and its bounds [from, to). */
function dayRange(now: Date, days: number): { days: string[]; from: Date; to: Date } {
  const to = new Date(startOfUtcDay(now).getTime() + DAY_MS);
  const from = new Date(to.getTime() - days * DAY_MS);
  return { days: Array.from({ length: days }, (_, i) => isoDay(new Date(from.getTime() + i * DAY_MS))), from, to };
}
/** Monday of the UTC week holding `day`. */
function weekOf(day: Date): Date {
  const d = startOfUtcDay(day);
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS);
}

export interface TensionWeek {
  weekStart: string;
  sensed: number;
  resolved: number;
  dropped: number;
  reopened: number;
  discarded: number;
  revived: number;
  /** mean score of the tensions sensed that week; null when none was */
  averageSensedScore: number | null;
}

export interface TensionStats {
  from: string;
  to: string;
  byState: { state: string; count: number }[];
  aliveByScore: { score: number; count: number }[];
  weeks: TensionWeek[];
  oldestAlive: { id: string; name: string; score: number; actorName: string; createdAt: string }[];
  actorLoad: ActorLoad[];
}

const FLOW_FIELDS: Record<string, keyof Omit<TensionWeek, 'weekStart' | 'averageSensedScore'>> = {
  TensionSensed: 'sensed',
  TensionResolved: 'resolved',
  TensionDropped: 'dropped',
  TensionReopened: 'reopened',
  TensionDiscarded: 'discarded',
  TensionRevived: 'revived',
};

export async function tensionStats(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<TensionStats>> {
  const denied = authorize(ctx, 'dashboard.tensions');
  if (denied) return denied;
  const parsed = parseInput(tensionStatsInput, input ?? {});
  if (!parsed.ok) return parsed;
  const now = deps.clock();
  const first = new Date(weekOf(now).getTime() - (parsed.value.weeks - 1) * 7 * DAY_MS);
  const to = new Date(startOfUtcDay(now).getTime() + DAY_MS);
  const em = reader(deps.orm);
  const [totals, flows, oldest, load] = [
    await tensionTotals(em),
    await tensionFlows(em, isoDay(first), isoDay(to)),
    await oldestAliveTensions(em, DASHBOARD_TOP),
    await actorLoad(em, DASHBOARD_TOP),
  ];
  const weeks = Array.from({ length: parsed.value.weeks }, (_, i) => ({
    weekStart: isoDay(new Date(first.getTime() + i * 7 * DAY_MS)),
    sensed: 0,
    resolved: 0,
    dropped: 0,
    reopened: 0,
    discarded: 0,
    revived: 0,
    scoreSum: 0,
  }));
  for (const f of flows) {
    const field = FLOW_FIELDS[f.type];
    if (!field) continue;
    const w = weeks[Math.floor((Date.parse(f.day) - first.getTime()) / (7 * DAY_MS))];
    if (!w) continue;
    w[field] += f.count;
    w.scoreSum += f.scoreSum;
  }
  return ok({
    from: first.toISOString(),
    to: to.toISOString(),
    byState: totals.byState.map((s) => ({ state: s.key, count: s.count })),
    aliveByScore: totals.aliveByScore.map((s) => ({ score: s.key, count: s.count })),
    weeks: weeks.map(({ scoreSum, ...w }) => ({ ...w, averageSensedScore: w.sensed ? Math.round((scoreSum / w.sensed) * 10) / 10 : null })),
    oldestAlive: oldest.map((t) => ({ ...t, createdAt: t.createdAt.toISOString() })),
    actorLoad: load,
  });
}

export interface KeyUsage {
  from: string;
  to: string;
  days: string[];
  /** the keys with the most requests in the period, most first, each with one count per day of `days` */
  keys: { keyId: string; keyName: string; prefix: string; userId: string; userName: string; total: number; requests: number[] }[];
}

export async function keyUsage(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<KeyUsage>> {
  const denied = authorize(ctx, 'dashboard.keyUsage');
  if (denied) return denied;
  const parsed = parseInput(daysInput, input ?? {});
  if (!parsed.ok) return parsed;
  const range = dayRange(deps.clock(), parsed.value.days);
  const rows = await keyUseDays(reader(deps.orm), isoDay(range.from), isoDay(range.to));
  const byKey = new Map<string, KeyUsage['keys'][number]>();
  for (const r of rows) {
    let k = byKey.get(r.keyId);
    if (!k) {
      k = { keyId: r.keyId, keyName: r.keyName, prefix: r.prefix, userId: r.userId, userName: r.userName, total: 0, requests: range.days.map(() => 0) };
      byKey.set(r.keyId, k);
    }
    const i = range.days.indexOf(r.day);
    if (i >= 0) k.requests[i] += r.requests;
    k.total += r.requests;
  }
  const keys = [...byKey.values()].sort((a, b) => b.total - a.total || a.keyName.localeCompare(b.keyName)).slice(0, KEY_SERIES_MAX);
  return ok({ from: range.from.toISOString(), to: range.to.toISOString(), days: range.days, keys });
}

export interface SignInFailures {
  from: string;
  to: string;
  days: { day: string; failed: number; throttled: number }[];
}

export async function signInFailures(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<SignInFailures>> {
  const denied = authorize(ctx, 'dashboard.signInFailures');
  if (denied) return denied;
  const parsed = parseInput(daysInput, input ?? {});
  if (!parsed.ok) return parsed;
  const range = dayRange(deps.clock(), parsed.value.days);
  const rows = new Map((await signInFailureDays(reader(deps.orm), range.from, range.to)).map((r) => [r.day, r]));
  return ok({
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    days: range.days.map((day) => ({ day, failed: rows.get(day)?.failed ?? 0, throttled: rows.get(day)?.throttled ?? 0 })),
  });
}

export interface FeedHealth {
  headPosition: number;
  relays: (Omit<RelayHealth, 'updatedAt'> & { updatedAt: string })[];
}

export async function feedHealthOf(deps: Deps, ctx: Ctx): Promise<Result<FeedHealth>> {
  const denied = authorize(ctx, 'dashboard.feedHealth');
  if (denied) return denied;
  const h = await feedHealth(reader(deps.orm), deps.clock());
  return ok({ headPosition: h.headPosition, relays: h.relays.map((r) => ({ ...r, updatedAt: r.updatedAt.toISOString() })) });
}

export async function webhookHealthOf(deps: Deps, ctx: Ctx): Promise<Result<WebhookHealth>> {
  const denied = authorize(ctx, 'dashboard.webhookHealth');
  if (denied) return denied;
  return ok(await webhookHealth(reader(deps.orm)));
}
