// One tension: its fields, the commands its state and the user's permissions allow, and its history.
import { useMemo, useState } from 'react';
import { useClient, useMutation, type CombinedError } from 'urql';
import { graphql } from '../gql/index.js';
import type { TensionCommand, TensionFieldsFragment } from '../gql/graphql.js';
import { useI18n } from '../i18n/index.js';
import { errorCode } from '../lib/errors.js';
import { Link, useRouter } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { setFlash } from '../lib/flash.js';
import { useTitle } from '../lib/use-title.js';
import { HistoryTimeline } from '../components/history-timeline.js';
import { ActorLink, LeadName, ScorePill, StateBadge } from '../components/tension-bits.js';
import { EditCommand, type Applied, type EditKind } from '../components/tension-edit.js';
import type { Entry } from '../components/history-timeline.js';
import { APPLIED_BY_CALLER } from '../lib/client.js';
import { Alert, Button, ConfirmDialog, EmptyState, ErrorAlert, Loading, PageHeader, RetryingNotice } from '../components/ui.js';
import { LiveIndicator } from '../components/live-indicator.js';
import { useLiveEvents } from '../lib/use-live-events.js';
import { useKeptQuery } from '../lib/use-kept-query.js';
import { useOwnChanges } from '../lib/use-own-changes.js';

graphql(`
  fragment TensionFields on Tension {
    id name currentContext potentialFuture score state version createdAt updatedAt allowedCommands
    actorId actor { id name type }
    leadUserId lead { id name type status }
  }
`);

const TensionDocument = graphql(`
  query Tension($id: ID!) {
    tension(id: $id) { ...TensionFields }
  }
`);

const ResolveDocument = graphql(`
  mutation ResolveTension($id: ID!, $expectedVersion: Int) {
    resolveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }
  }
`);
const DropDocument = graphql(`
  mutation DropTension($id: ID!, $expectedVersion: Int) {
    dropTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }
  }
`);
const ReopenDocument = graphql(`
  mutation ReopenTension($id: ID!, $expectedVersion: Int) {
    reopenTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }
  }
`);
const ReviveDocument = graphql(`
  mutation ReviveTension($id: ID!, $expectedVersion: Int) {
    reviveTension(id: $id, input: { expectedVersion: $expectedVersion }) { tension { ...TensionFields } event { ...HistoryEntryFields } }
  }
`);
const DiscardDocument = graphql(`
  mutation DiscardTension($id: ID!, $expectedVersion: Int) {
    discardTension(id: $id, input: { expectedVersion: $expectedVersion }) { event { version } }
  }
`);

export type Tension = TensionFieldsFragment;

export function TensionDetailPage({ id }: { id: string }) {
  const { t } = useI18n();
  // a failed reload keeps the page (and an open edit dialog) as it was, with a notice, and retries by itself
  const [{ data, error, fetching, retrying }, refetch] = useKeptQuery({ query: TensionDocument, variables: { id } });
  const client = useClient();
  const [historyEpoch, setHistoryEpoch] = useState(0);
  // what this page's own commands answered: shown as is, no refetch (see APPLIED_BY_CALLER)
  const [latest, setLatest] = useState<Tension | null>(null);
  const [fresh, setFresh] = useState<Entry[]>([]);
  const reload = () => {
    setLatest(null);
    setFresh([]);
    refetch({ requestPolicy: 'network-only' });
    setHistoryEpoch((e) => e + 1);
  };
  /** The tension as saved now (after a version conflict): the page shows it, and its history, too. */
  const fetchLatest = async (): Promise<Tension | null> => {
    const r = await client.query(TensionDocument, { id }, { requestPolicy: 'network-only' }).toPromise();
    if (!r.data?.tension) return null;
    setLatest(null);
    setFresh([]);
    setHistoryEpoch((e) => e + 1);
    return r.data.tension;
  };
  const applied = (r: Applied) => {
    if (r.tension) setLatest(r.tension);
    const event = r.event;
    if (event) setFresh((f) => [event, ...f]);
  };
  // a live event this page's own command wrote is already on screen; anyone else's reloads it
  const own = useOwnChanges(data?.tension?.version ?? 0, reload);
  const live = useLiveEvents({ streamId: id, onEvent: (e) => own.onEvent(e.event.version) });
  useTitle(data?.tension?.name ?? t('nav.tensions'));
  // a lookup that finds nothing is `tension: null` with a NOT_FOUND error for that field
  if (error && !data?.tension) {
    if (errorCode(error) === 'NOT_FOUND') {
      // a discarded tension's stream stays: its history is still there to read
      const actions = (
        <div className="page-actions">
          <Link to={`/tensions/${id}/history`} className="btn btn-primary">
            {t('tension.openHistory')}
          </Link>
          <Link to="/tensions" className="btn">
            ← {t('nav.tensions')}
          </Link>
        </div>
      );
      return <EmptyState action={actions}>{t('tension.gone')}</EmptyState>;
    }
    return <ErrorAlert error={error} onRetry={reload} />;
  }
  if (!data?.tension) return fetching ? <Loading /> : null;
  const tension = latest && latest.version >= data.tension.version ? latest : data.tension;
  return (
    <>
      <RetryingNotice error={retrying} />
      <PageHeader title={tension.name} trail={[{ to: '/tensions', label: t('nav.tensions') }]}>
        <div className="header-meta">
          <StateBadge state={tension.state} />
          <LiveIndicator state={live} />
          <ScorePill score={tension.score} />
          <span className="muted">{tension.actor.name}</span>
        </div>
      </PageHeader>
      <TensionCommands tension={tension} onReload={reload} fetchLatest={fetchLatest} onApplied={applied} track={own.track} />
      <div className="detail-grid">
        <section className="card" aria-labelledby="details-h">
          <h2 id="details-h">{t('tension.details')}</h2>
          <TensionFacts tension={tension} />
        </section>
        <section className="card" aria-labelledby="history-h">
          <h2 id="history-h">{t('tension.history')}</h2>
          <HistoryTimeline key={historyEpoch} id={tension.id} fresh={fresh} />
        </section>
      </div>
    </>
  );
}

function TensionFacts({ tension }: { tension: Tension }) {
  const { t, formatDate } = useI18n();
  const text = (v: string | null | undefined) => (v ? <p className="prose">{v}</p> : <p className="muted">{t('tension.noContext')}</p>);
  return (
    <dl className="facts">
      <dt>{t('tension.field.currentContext')}</dt>
      <dd>{text(tension.currentContext)}</dd>
      <dt>{t('tension.field.potentialFuture')}</dt>
      <dd>{text(tension.potentialFuture)}</dd>
      <dt>{t('tension.field.actor')}</dt>
      <dd>
        <ActorLink actor={tension.actor} />
      </dd>
      <dt>{t('tension.field.lead')}</dt>
      <dd>
        <LeadName lead={tension.lead} />
      </dd>
      <dt>{t('common.created')}</dt>
      <dd>{formatDate(tension.createdAt)}</dd>
      <dt>{t('common.updated')}</dt>
      <dd>{formatDate(tension.updatedAt)}</dd>
      <dt>{t('tension.field.version')}</dt>
      <dd>{tension.version}</dd>
    </dl>
  );
}

/**
 * The commands the server may allow, by where their button is: an edit (a dialog), discard (confirmed
 * apart), or a lifecycle move (everything else the schema's TensionCommand names but sense, which never
 * applies to an existing tension). A command the schema gains is a lifecycle move until placed otherwise,
 * and `lifecycle` below fails to compile without it.
 */
type LifecycleVerb = Exclude<TensionCommand, EditKind | 'discard' | 'sense'>;
/** The edits in toolbar order; every EditKind once (`satisfies`: one left out fails to compile). */
const EDITS = Object.keys({ rename: 1, rescore: 1, revise: 1, lead: 1, reassign: 1 } satisfies Record<EditKind, 1>) as EditKind[];

/** `track`: sends a command so the page knows its answer's event as its own (see useOwnChanges). */
type Track = <T extends Applied>(send: () => Promise<T>) => Promise<T>;

function TensionCommands({
  tension,
  onReload,
  fetchLatest,
  onApplied,
  track,
}: {
  tension: Tension;
  onReload: () => void;
  fetchLatest: () => Promise<Tension | null>;
  onApplied: (r: Applied) => void;
  track: Track;
}) {
  const { t } = useI18n();
  const { can } = useSession();
  const { navigate } = useRouter();
  const [editing, setEditing] = useState<EditKind | null>(null);
  const [discarding, setDiscarding] = useState(false);
  const [notice, setNotice] = useState<'saved' | 'unchanged' | 'dropped' | 'revived' | null>(null);
  // the version the page's own Drop produced: Undo revives at exactly that version, so a change by anyone
  // else since is a version conflict, never overwritten
  const [undoAt, setUndoAt] = useState<number | null>(null);
  const [failure, setFailure] = useState<CombinedError | null>(null);
  const [resolveState, resolve] = useMutation(ResolveDocument);
  const [dropState, drop] = useMutation(DropDocument);
  const [reopenState, reopen] = useMutation(ReopenDocument);
  const [reviveState, revive] = useMutation(ReviveDocument);
  const [discardState, discard] = useMutation(DiscardDocument);
  const busy = resolveState.fetching || dropState.fetching || reopenState.fetching || reviveState.fetching;
  const vars = { id: tension.id, expectedVersion: tension.version };

  const done = (result: Applied, said: 'saved' | 'dropped' | 'revived' = 'saved') => {
    setUndoAt(null);
    if (result.error) {
      setFailure(result.error);
      setNotice(null);
    } else {
      setFailure(null);
      setNotice(result.event ? said : 'unchanged');
      if (said === 'dropped' && result.event && result.tension) setUndoAt(result.tension.version);
      onApplied(result);
    }
  };
  const undoDrop = async (version: number) =>
    done(
      await track(async () => {
        const r = await revive({ id: tension.id, expectedVersion: version }, APPLIED_BY_CALLER);
        return { error: r.error, ...r.data?.reviveTension };
      }),
      'revived',
    );
  const lifecycle: Record<LifecycleVerb, () => Promise<void>> = useMemo(
    () => ({
      resolve: async () =>
        done(
          await track(async () => {
            const r = await resolve(vars, APPLIED_BY_CALLER);
            return { error: r.error, ...r.data?.resolveTension };
          }),
        ),
      drop: async () =>
        done(
          await track(async () => {
            const r = await drop(vars, APPLIED_BY_CALLER);
            return { error: r.error, ...r.data?.dropTension };
          }),
          'dropped',
        ),
      reopen: async () =>
        done(
          await track(async () => {
            const r = await reopen(vars, APPLIED_BY_CALLER);
            return { error: r.error, ...r.data?.reopenTension };
          }),
        ),
      revive: async () =>
        done(
          await track(async () => {
            const r = await revive(vars, APPLIED_BY_CALLER);
            return { error: r.error, ...r.data?.reviveTension };
          }),
        ),
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [tension.id, tension.version],
  );

  const conflict = failure && errorCode(failure) === 'VERSION_CONFLICT';
  // What the server says would change this tension now: no copy of the lifecycle rules here.
  const allowed = new Set(tension.allowedCommands);
  const edits = EDITS.filter((k) => allowed.has(k));
  return (
    <div className="commands">
      {conflict ? (
        <Alert
          kind="warning"
          action={
            <Button
              variant="primary"
              onClick={() => {
                setFailure(null);
                onReload();
              }}
            >
              {t('common.reload')}
            </Button>
          }
        >
          {t('error.versionConflict')}
        </Alert>
      ) : failure ? (
        <ErrorAlert error={failure} />
      ) : notice === 'dropped' ? (
        // a drop is honest to undo (SPEC §3: revive takes a stale tension back to alive)
        <Alert
          kind="success"
          action={
            undoAt !== null && can('tensions:write') ? (
              <Button disabled={busy} onClick={() => void undoDrop(undoAt)}>
                {t('common.undo')}
              </Button>
            ) : null
          }
        >
          {t('tension.dropped')}
        </Alert>
      ) : notice ? (
        <Alert kind={notice === 'unchanged' ? 'info' : 'success'}>
          {notice === 'revived' ? t('tension.revived') : notice === 'saved' ? t('tension.saved') : t('tension.unchanged')}
        </Alert>
      ) : null}
      <div className="toolbar" role="toolbar" aria-label={t('common.actions')}>
        {can('tensions:write') ? (
          <>
            <div className="toolbar-group">
              {edits.map((k) => (
                <Button key={k} onClick={() => setEditing(k)}>
                  {t(`tension.cmd.${k}`)}
                </Button>
              ))}
            </div>
            <div className="toolbar-group">
              {(Object.keys(lifecycle) as LifecycleVerb[])
                .filter((k) => allowed.has(k))
                .map((k) => (
                  <Button key={k} variant={k === 'drop' ? 'secondary' : 'primary'} disabled={busy} onClick={() => void lifecycle[k]()}>
                    {t(`tension.cmd.${k}`)}
                  </Button>
                ))}
            </div>
          </>
        ) : null}
        {can('tensions:delete') && allowed.has('discard') ? (
          <div className="toolbar-group toolbar-end">
            <Button variant="danger" onClick={() => setDiscarding(true)}>
              {t('tension.cmd.discard')}
            </Button>
          </div>
        ) : null}
      </div>
      {editing ? (
        <EditCommand
          kind={editing}
          tension={tension}
          onClose={() => setEditing(null)}
          fetchLatest={fetchLatest}
          track={track}
          onDone={(r) => {
            done(r);
            setEditing(null);
          }}
        />
      ) : null}
      <ConfirmDialog
        open={discarding}
        title={t('tension.discard.title')}
        body={t('tension.discard.body', { name: tension.name })}
        confirmLabel={t('tension.cmd.discard')}
        busy={discardState.fetching}
        error={discardState.error}
        onClose={() => setDiscarding(false)}
        onConfirm={async () => {
          const r = await discard(vars, { additionalTypenames: ['Tension', 'Actor'] });
          if (!r.error) {
            setFlash('tension.discarded');
            navigate('/tensions');
          } else if (errorCode(r.error) === 'VERSION_CONFLICT') {
            setDiscarding(false);
            done({ error: r.error });
          }
        }}
      />
    </div>
  );
}
