// A tension's history, newest first: each page of 50 entries its own query, "Load more" adds the next and
// "Load all" keeps adding pages until the first event.
import { useCallback, useEffect, useState } from 'react';
import { graphql } from '../gql/index.js';
import { translateSummary, useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import type { HistoryEntryFieldsFragment } from '../gql/graphql.js';
import { Button, EmptyState, ErrorAlert, Loading } from './ui.js';
import { useKeptQuery } from '../lib/use-kept-query.js';
import { CompareVersions, PastVersion } from './tension-past.js';

graphql(`
  fragment HistoryEntryFields on HistoryEntry {
    version type occurredAt summary summaryKey summaryParams
    by { kind userId userName apiKeyName via }
  }
`);

const TensionHistoryDocument = graphql(`
  query TensionHistory($id: ID!, $limit: Int, $cursor: String) {
    tensionHistory(id: $id, limit: $limit, cursor: $cursor) {
      data { ...HistoryEntryFields }
      nextCursor
    }
  }
`);

export type Entry = HistoryEntryFieldsFragment;
const PAGE = 50;
const VIA: Record<string, string> = { graphql: 'GraphQL', rest: 'REST', mcp: 'MCP', cli: 'CLI' };

/** `fresh`: entries the page's own commands just appended (their answers carry them), shown without a refetch. */
export function HistoryTimeline({ id, fresh = [] }: { id: string; fresh?: Entry[] }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [all, setAll] = useState(false);
  // a cursor already asked for is never added twice (Load all asks again at every render of the last page)
  const more = useCallback((c: string) => setCursors((cs) => (cs.includes(c) ? cs : [...cs, c])), []);
  return (
    <>
      <CompareVersions id={id} />
      <ol className="timeline" aria-live="polite">
        {cursors.map((cursor, i) => (
          <HistoryPage
            key={cursor ?? 'first'}
            id={id}
            fresh={i === 0 ? fresh : []}
            cursor={cursor}
            last={i === cursors.length - 1}
            first={i === 0}
            loadAll={all}
            onMore={more}
            onAll={() => setAll(true)}
          />
        ))}
      </ol>
    </>
  );
}

function HistoryPage({
  id,
  fresh,
  cursor,
  last,
  first,
  loadAll,
  onMore,
  onAll,
}: {
  id: string;
  fresh: Entry[];
  cursor: string | null;
  last: boolean;
  first: boolean;
  loadAll: boolean;
  onMore: (c: string) => void;
  onAll: () => void;
}) {
  const { t } = useI18n();
  // a failed refetch keeps the entries shown; a failed first load shows its Retry and retries once online
  const [{ data, error, fetching }, refetch] = useKeptQuery({ query: TensionHistoryDocument, variables: { id, limit: PAGE, cursor } });
  const next = last ? (data?.tensionHistory.nextCursor ?? null) : null;
  useEffect(() => {
    if (loadAll && next) onMore(next);
  }, [loadAll, next, onMore]);
  if (error && !data)
    return (
      <li>
        <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      </li>
    );
  if (!data)
    return fetching ? (
      <li>
        <Loading />
      </li>
    ) : null;
  const page = data.tensionHistory;
  const newer = fresh.filter((e) => e.version > (page.data[0]?.version ?? 0));
  if (first && page.data.length === 0 && newer.length === 0)
    return (
      <li>
        <EmptyState>{t('tension.historyEmpty')}</EmptyState>
      </li>
    );
  return (
    <>
      {[...newer, ...page.data].map((entry) => (
        <HistoryItem key={entry.version} id={id} entry={entry} />
      ))}
      {next && loadAll ? (
        <li className="timeline-more">
          <Loading />
        </li>
      ) : next ? (
        <li className="timeline-more">
          <Button onClick={() => onMore(next)}>{t('common.loadMore')}</Button> <Button onClick={onAll}>{t('history.loadAll')}</Button>
        </li>
      ) : null}
    </>
  );
}

function HistoryItem({ id, entry }: { id: string; entry: Entry }) {
  const { t, lang, formatDate } = useI18n();
  const [open, setOpen] = useState(false);
  // a discard leaves nothing to show as of its version
  const readable = entry.type !== 'TensionDiscarded';
  const text = translateSummary(lang, entry.summaryKey, entry.summaryParams, entry.summary);
  const by = entry.by;
  const kind = t(`history.kind.${by.kind}` as MessageKey);
  const who = by.userName ?? (by.kind === 'system' ? kind : t('history.unknownUser'));
  return (
    <li className={`timeline-item timeline-${entry.type}`}>
      <span className={`timeline-dot dot-${by.kind}`} aria-hidden="true" />
      <div className="timeline-body">
        <p className="timeline-summary" data-summary-key={entry.summaryKey}>
          {text}
        </p>
        <p className="timeline-meta">
          <span>{t('history.by', { who })}</span> <span className={`badge badge-kind-${by.kind}`}>{kind}</span>
          {by.apiKeyName ? (
            <>
              {' '}
              <span>{t('history.byKey', { key: by.apiKeyName })}</span>
            </>
          ) : null}
          {by.via ? (
            <>
              {' '}
              · <span>{t('history.via', { via: VIA[by.via] ?? by.via })}</span>
            </>
          ) : null}
          {' · '}
          <time dateTime={entry.occurredAt}>{formatDate(entry.occurredAt)}</time>
          {' · '}
          <span className="muted">{t('history.version', { version: entry.version })}</span>
          {readable ? (
            <>
              {' · '}
              <Button className="btn-link" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
                {t(open ? 'past.hide' : 'past.show')}
              </Button>
            </>
          ) : null}
        </p>
        {open ? <PastVersion id={id} version={entry.version} /> : null}
      </div>
    </li>
  );
}
