// The operator dashboard (issue 36): each section reads its own query and shows only where the operator holds
// its permission. Every chart has its figures in a table; the page and its charting library are a chunk of
// their own, loaded when the dashboard is opened (shell.tsx lazy-loads this module).
import { useMemo, useState, type ReactNode } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { Link } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { useTitle } from '../lib/use-title.js';
import { ErrorAlert, Loading, PageHeader } from '../components/ui.js';
import { Chart, type ChartSeries } from '../components/chart.js';

const TensionsDocument = graphql(`
  query DashboardTensions($weeks: Int) {
    dashboardTensions(weeks: $weeks) {
      from
      to
      byState { state count }
      aliveByScore { score count }
      weeks { weekStart sensed resolved dropped reopened discarded revived averageSensedScore }
      oldestAlive { id name score actorName createdAt }
      actorLoad { actorId actorName alive total }
    }
  }
`);
const KeyUsageDocument = graphql(`
  query DashboardKeyUsage($days: Int) {
    dashboardKeyUsage(days: $days) { from to days keys { keyId keyName prefix userId userName total requests } }
  }
`);
const SignInDocument = graphql(`
  query DashboardSignInFailures($days: Int) {
    dashboardSignInFailures(days: $days) { from to days { day failed throttled } }
  }
`);
const FeedDocument = graphql(`
  query DashboardFeedHealth {
    dashboardFeedHealth { headPosition relays { name behind published leaseActive updatedAt } }
  }
`);
const WebhookDocument = graphql(`
  query DashboardWebhookHealth {
    dashboardWebhookHealth { endpoints enabled failing disabled retrying }
  }
`);

const STATES = ['alive', 'resolved', 'stale'] as const;

function useNumber() {
  const { lang } = useI18n();
  return useMemo(() => new Intl.NumberFormat(lang === 'de' ? 'de-DE' : 'en-GB'), [lang]);
}
function useDay() {
  const { lang } = useI18n();
  return useMemo(() => {
    const f = new Intl.DateTimeFormat(lang === 'de' ? 'de-DE' : 'en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
    return (day: string) => f.format(new Date(`${day}T00:00:00Z`));
  }, [lang]);
}

function Period<T extends number>({
  label,
  value,
  options,
  onChange,
  unit,
}: {
  label: string;
  value: T;
  options: T[];
  onChange: (v: T) => void;
  unit: (n: number) => string;
}) {
  return (
    <label className="dashboard-period">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(Number(e.target.value) as T)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {unit(o)}
          </option>
        ))}
      </select>
    </label>
  );
}

function Section({ title, id, actions, children }: { title: string; id: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="dashboard-section" aria-labelledby={id}>
      <div className="dashboard-section-head">
        <h2 id={id}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

function Tile({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="tile card" data-testid={testId}>
      <div className="tile-value">{value}</div>
      <div className="tile-label">{label}</div>
    </div>
  );
}

function SimpleTable({ caption, head, rows }: { caption: string; head: string[]; rows: ReactNode[][] }) {
  return (
    <table className="table dashboard-table">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {head.map((h, i) => (
            <th key={h} scope="col" className={i > 0 ? 'num' : undefined}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={i}>
            {r.map((c, j) => (
              <td key={j} data-label={head[j]} className={j > 0 ? 'num' : undefined}>
                {c}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function TensionsSection() {
  const { t, formatDate } = useI18n();
  const n = useNumber();
  const day = useDay();
  const [weeks, setWeeks] = useState(12);
  const [{ data, error, fetching }, refetch] = useQuery({ query: TensionsDocument, variables: { weeks }, requestPolicy: 'cache-and-network' });
  const s = data?.dashboardTensions;
  const flows = useMemo(() => {
    if (!s) return null;
    const labels = s.weeks.map((w) => day(w.weekStart));
    const series: ChartSeries[] = [
      { label: t('dashboard.created'), values: s.weeks.map((w) => w.sensed), color: '--accent' },
      { label: t('dashboard.resolved'), values: s.weeks.map((w) => w.resolved), color: '--success' },
      { label: t('dashboard.dropped'), values: s.weeks.map((w) => w.dropped), color: '--warning' },
    ];
    return { labels, series };
  }, [s, t, day]);
  const scores = useMemo(() => {
    if (!s) return null;
    const labels = Array.from({ length: 10 }, (_, i) => String(i + 1));
    const values = labels.map((_, i) => s.aliveByScore.find((x) => x.score === i + 1)?.count ?? 0);
    return { labels, series: [{ label: t('dashboard.alive'), values, color: '--purple' }] };
  }, [s, t]);
  const count = (state: string) => s?.byState.find((x) => x.state === state)?.count ?? 0;

  return (
    <Section
      id="dash-tensions"
      title={t('dashboard.tensions')}
      actions={
        <Period label={t('dashboard.period')} value={weeks} options={[4, 12, 26, 52]} onChange={setWeeks} unit={(w) => t('dashboard.weeks', { count: w })} />
      }
    >
      {error && !s ? <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} /> : null}
      {!s && fetching ? <Loading /> : null}
      {s && flows && scores ? (
        <>
          <div className="tiles">
            {STATES.map((state) => (
              <Tile key={state} testId={`tile-${state}`} label={t(`tension.state.${state}` as MessageKey)} value={n.format(count(state))} />
            ))}
          </div>
          <div className="dashboard-grid">
            <Chart
              title={t('dashboard.flowsTitle')}
              summary={t('dashboard.flowsSummary', { weeks: s.weeks.length })}
              labels={flows.labels}
              series={flows.series}
              tableLabel={t('dashboard.showTable')}
              table={
                <SimpleTable
                  caption={t('dashboard.flowsTitle')}
                  head={[t('dashboard.week'), t('dashboard.created'), t('dashboard.resolved'), t('dashboard.dropped'), t('dashboard.averageScore')]}
                  rows={s.weeks.map((w) => [
                    day(w.weekStart),
                    n.format(w.sensed),
                    n.format(w.resolved),
                    n.format(w.dropped),
                    w.averageSensedScore === null ? '–' : n.format(w.averageSensedScore),
                  ])}
                />
              }
            />
            <Chart
              title={t('dashboard.scoresTitle')}
              summary={t('dashboard.scoresSummary')}
              labels={scores.labels}
              series={scores.series}
              kind="bars"
              tableLabel={t('dashboard.showTable')}
              table={
                <SimpleTable
                  caption={t('dashboard.scoresTitle')}
                  head={[t('tensions.col.score'), t('dashboard.alive')]}
                  rows={scores.labels.map((l, i) => [l, n.format(scores.series[0].values[i])])}
                />
              }
            />
          </div>
          <div className="dashboard-grid">
            <div className="card dashboard-list">
              <h3>{t('dashboard.oldest')}</h3>
              {s.oldestAlive.length ? (
                <SimpleTable
                  caption={t('dashboard.oldest')}
                  head={[t('common.name'), t('tensions.col.actor'), t('dashboard.since')]}
                  rows={s.oldestAlive.map((o) => [<Link to={`/tensions/${o.id}`}>{o.name}</Link>, o.actorName, formatDate(o.createdAt)])}
                />
              ) : (
                <p className="muted">{t('dashboard.none')}</p>
              )}
            </div>
            <div className="card dashboard-list">
              <h3>{t('dashboard.actorLoad')}</h3>
              {s.actorLoad.length ? (
                <SimpleTable
                  caption={t('dashboard.actorLoad')}
                  head={[t('tensions.col.actor'), t('dashboard.alive'), t('dashboard.total')]}
                  rows={s.actorLoad.map((a) => [<Link to={`/tensions?actorId=${a.actorId}`}>{a.actorName}</Link>, n.format(a.alive), n.format(a.total)])}
                />
              ) : (
                <p className="muted">{t('dashboard.none')}</p>
              )}
            </div>
          </div>
        </>
      ) : null}
    </Section>
  );
}

const KEY_COLORS = ['--accent', '--success', '--warning', '--purple', '--danger'];

function KeysSection() {
  const { t } = useI18n();
  const n = useNumber();
  const day = useDay();
  const [days, setDays] = useState(14);
  const [{ data, error, fetching }, refetch] = useQuery({ query: KeyUsageDocument, variables: { days }, requestPolicy: 'cache-and-network' });
  const u = data?.dashboardKeyUsage;
  const chart = useMemo(
    () =>
      u
        ? {
            labels: u.days.map(day),
            series: u.keys.slice(0, KEY_COLORS.length).map((k, i) => ({ label: `${k.keyName} (${k.userName})`, values: k.requests, color: KEY_COLORS[i] })),
          }
        : null,
    [u, day],
  );
  return (
    <Section
      id="dash-keys"
      title={t('dashboard.keys')}
      actions={
        <Period label={t('dashboard.period')} value={days} options={[7, 14, 30, 90]} onChange={setDays} unit={(d) => t('dashboard.days', { count: d })} />
      }
    >
      {error && !u ? <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} /> : null}
      {!u && fetching ? <Loading /> : null}
      {u && chart ? (
        u.keys.length ? (
          <Chart
            title={t('dashboard.keysTitle')}
            summary={t('dashboard.keysSummary', { days: u.days.length })}
            labels={chart.labels}
            series={chart.series}
            tableLabel={t('dashboard.showTable')}
            table={
              <SimpleTable
                caption={t('dashboard.keysTitle')}
                head={[t('dashboard.key'), t('dashboard.owner'), t('dashboard.total'), t('dashboard.today')]}
                rows={u.keys.map((k) => [
                  `${k.keyName} (${k.prefix}…)`,
                  <Link to={`/users/${k.userId}`}>{k.userName}</Link>,
                  n.format(k.total),
                  n.format(k.requests[k.requests.length - 1] ?? 0),
                ])}
              />
            }
          />
        ) : (
          <p className="muted">{t('dashboard.noKeyUse')}</p>
        )
      ) : null}
    </Section>
  );
}

function SignInSection() {
  const { t } = useI18n();
  const n = useNumber();
  const day = useDay();
  const [{ data, error, fetching }, refetch] = useQuery({ query: SignInDocument, variables: { days: 14 }, requestPolicy: 'cache-and-network' });
  const f = data?.dashboardSignInFailures;
  const chart = useMemo(
    () =>
      f
        ? {
            labels: f.days.map((d) => day(d.day)),
            series: [
              { label: t('dashboard.failed'), values: f.days.map((d) => d.failed), color: '--danger' },
              { label: t('dashboard.throttled'), values: f.days.map((d) => d.throttled), color: '--warning' },
            ],
          }
        : null,
    [f, day, t],
  );
  return (
    <Section id="dash-signin" title={t('dashboard.signIns')}>
      {error && !f ? <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} /> : null}
      {!f && fetching ? <Loading /> : null}
      {f && chart ? (
        <Chart
          title={t('dashboard.signInsTitle')}
          summary={t('dashboard.signInsSummary', { days: f.days.length })}
          labels={chart.labels}
          series={chart.series}
          kind="lines"
          tableLabel={t('dashboard.showTable')}
          table={
            <SimpleTable
              caption={t('dashboard.signInsTitle')}
              head={[t('dashboard.day'), t('dashboard.failed'), t('dashboard.throttled')]}
              rows={f.days.map((d) => [day(d.day), n.format(d.failed), n.format(d.throttled)])}
            />
          }
        />
      ) : null}
    </Section>
  );
}

function OpsSection({ feed, webhooks }: { feed: boolean; webhooks: boolean }) {
  const { t, formatDate } = useI18n();
  const n = useNumber();
  const [{ data: feedData }] = useQuery({ query: FeedDocument, pause: !feed, requestPolicy: 'cache-and-network' });
  const [{ data: hookData }] = useQuery({ query: WebhookDocument, pause: !webhooks, requestPolicy: 'cache-and-network' });
  const h = feedData?.dashboardFeedHealth;
  const w = hookData?.dashboardWebhookHealth;
  return (
    <Section id="dash-ops" title={t('dashboard.ops')}>
      <div className="tiles">
        {h ? <Tile label={t('dashboard.feedHead')} value={n.format(h.headPosition)} /> : null}
        {w ? (
          <>
            <Tile label={t('dashboard.webhooksEnabled')} value={n.format(w.enabled)} />
            <Tile label={t('dashboard.webhooksFailing')} value={n.format(w.failing)} />
            <Tile label={t('dashboard.webhooksDisabled')} value={n.format(w.disabled)} />
            <Tile label={t('dashboard.webhooksRetrying')} value={n.format(w.retrying)} />
          </>
        ) : null}
      </div>
      {h ? (
        <div className="card dashboard-list">
          <h3>{t('dashboard.relays')}</h3>
          {h.relays.length ? (
            <SimpleTable
              caption={t('dashboard.relays')}
              head={[t('common.name'), t('dashboard.behind'), t('dashboard.relayState'), t('dashboard.updated')]}
              rows={h.relays.map((r) => [
                r.name,
                n.format(r.behind),
                r.leaseActive ? t('dashboard.relayRunning') : t('dashboard.relayStopped'),
                formatDate(r.updatedAt),
              ])}
            />
          ) : (
            <p className="muted">{t('dashboard.noRelays')}</p>
          )}
        </div>
      ) : null}
    </Section>
  );
}

export function DashboardPage() {
  const { t } = useI18n();
  useTitle(t('dashboard.title'));
  const { can } = useSession();
  return (
    <div className="dashboard">
      <PageHeader title={t('dashboard.title')}>
        <p className="muted">{t('dashboard.lead')}</p>
      </PageHeader>
      {can('tensions:read') ? <TensionsSection /> : null}
      {can('users:read') ? <KeysSection /> : null}
      {can('audit:read') ? <SignInSection /> : null}
      {can('events:read') || can('webhooks:read') ? <OpsSection feed={can('events:read')} webhooks={can('webhooks:read')} /> : null}
    </div>
  );
}
