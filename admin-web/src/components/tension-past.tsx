// Reading a tension's past (SPEC §15): the tension as of one version beside its changes against the version
// before, and a comparison of any two versions. The server folds; this only shows what it answers.
import { useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { Button, ErrorAlert, Field, Loading } from './ui.js';
import { ScorePill, StateBadge } from './tension-bits.js';

const TensionAsOfDocument = graphql(`
  query TensionAsOf($id: ID!, $version: Int!, $before: Int!, $first: Boolean!) {
    tension(id: $id, asOfVersion: $version) {
      id name state score currentContext potentialFuture
      actor { id name type }
      lead { id name }
      asOf { version occurredAt }
    }
    tensionChanges(id: $id, from: $before, to: $version) @skip(if: $first) {
      from to changes { field from to }
    }
  }
`);

const TensionChangesDocument = graphql(`
  query TensionChanges($id: ID!, $from: Int!, $to: Int!) {
    tensionChanges(id: $id, from: $from, to: $to) {
      from to changes { field from to }
    }
  }
`);

interface Change {
  field: string;
  from?: unknown;
  to?: unknown;
}

/** One value of a change, in words: actor and lead by name, state translated, empty said as such. */
function ChangeValue({ field, value }: { field: string; value: unknown }) {
  const { t } = useI18n();
  if (value === null || value === undefined || value === '') return <span className="muted">{t(field === 'lead' ? 'tension.noLead' : 'common.none')}</span>;
  if (typeof value === 'object') return <>{(value as { name?: string }).name ?? ''}</>;
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value);
  return field === 'state' ? <StateBadge state={text} /> : <>{text}</>;
}

export function ChangesList({ changes }: { changes: Change[] }) {
  const { t } = useI18n();
  if (changes.length === 0) return <p className="muted">{t('past.noChanges')}</p>;
  return (
    <dl className="facts past-changes">
      {changes.map((c) => (
        <div key={c.field} style={{ display: 'contents' }}>
          <dt>{t(`tension.field.${c.field}` as MessageKey)}</dt>
          <dd>
            <del>
              <ChangeValue field={c.field} value={c.from} />
            </del>{' '}
            →{' '}
            <ins>
              <ChangeValue field={c.field} value={c.to} />
            </ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The tension as of `version`, beside what that version changed. */
export function PastVersion({ id, version }: { id: string; version: number }) {
  const { t, formatDate } = useI18n();
  const first = version <= 1;
  const [{ data, error, fetching }, refetch] = useQuery({ query: TensionAsOfDocument, variables: { id, version, before: Math.max(1, version - 1), first } });
  if (error && !data) return <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  if (!data?.tension) return fetching ? <Loading /> : null;
  const past = data.tension;
  const text = (v: string | null | undefined) => (v ? <p className="prose">{v}</p> : <p className="muted">{t('tension.noContext')}</p>);
  return (
    <div className="past-version detail-grid">
      <section>
        <h3>{t('past.asOf', { version: past.asOf?.version ?? version, when: past.asOf ? formatDate(past.asOf.occurredAt) : '' })}</h3>
        <dl className="facts">
          <dt>{t('tension.field.name')}</dt>
          <dd>{past.name}</dd>
          <dt>{t('tension.field.state')}</dt>
          <dd>
            <StateBadge state={past.state} />
          </dd>
          <dt>{t('tension.field.score')}</dt>
          <dd>
            <ScorePill score={past.score} />
          </dd>
          <dt>{t('tension.field.currentContext')}</dt>
          <dd>{text(past.currentContext)}</dd>
          <dt>{t('tension.field.potentialFuture')}</dt>
          <dd>{text(past.potentialFuture)}</dd>
          <dt>{t('tension.field.actor')}</dt>
          <dd>
            {past.actor.name}
            {past.actor.type === 'deleted' ? <span className="muted"> ({t('past.actorDeleted')})</span> : null}
          </dd>
          <dt>{t('tension.field.lead')}</dt>
          <dd>{past.lead ? past.lead.name : <span className="muted">{t('tension.noLead')}</span>}</dd>
        </dl>
      </section>
      <section>
        <h3>{first ? t('past.firstVersion') : t('past.changesAgainst', { version: version - 1 })}</h3>
        {data.tensionChanges ? <ChangesList changes={data.tensionChanges.changes} /> : null}
      </section>
    </div>
  );
}

/** Any two versions compared: the fields that differ, with their values at each. */
export function CompareVersions({ id }: { id: string }) {
  const { t } = useI18n();
  const [from, setFrom] = useState('1');
  const [to, setTo] = useState('');
  const [asked, setAsked] = useState<{ from: number; to: number } | null>(null);
  const [{ data, error, fetching }] = useQuery({ query: TensionChangesDocument, variables: { id, from: asked?.from ?? 1, to: asked?.to ?? 1 }, pause: !asked });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const a = Number(from);
    const b = Number(to);
    if (Number.isInteger(a) && Number.isInteger(b) && a >= 1 && b >= 1) setAsked({ from: Math.min(a, b), to: Math.max(a, b) });
  };
  return (
    <details className="past-compare">
      <summary>{t('past.compare')}</summary>
      <form noValidate className="past-compare-form" onSubmit={submit}>
        <Field label={t('past.compareFrom')}>
          {(props) => <input {...props} type="number" min={1} step={1} required value={from} onChange={(e) => setFrom(e.target.value)} />}
        </Field>
        <Field label={t('past.compareTo')}>
          {(props) => <input {...props} type="number" min={1} step={1} required value={to} onChange={(e) => setTo(e.target.value)} />}
        </Field>
        <Button type="submit" variant="primary">
          {t('past.compareButton')}
        </Button>
      </form>
      {asked ? (
        error ? (
          <ErrorAlert error={error} />
        ) : fetching || !data ? (
          <Loading />
        ) : (
          <>
            <p className="muted">{t('past.compared', { from: data.tensionChanges.from, to: data.tensionChanges.to })}</p>
            <ChangesList changes={data.tensionChanges.changes} />
          </>
        )
      ) : null}
    </details>
  );
}
