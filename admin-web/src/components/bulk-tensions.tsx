// Bulk actions on tensions: resolve, drop, reassign or set the lead of the selected rows (a page, or every
// tension matching the list's filter), one command per tension through the same mutations a tension page uses.
import { useState } from 'react';
import { useClient } from 'urql';
import { graphql } from '../gql/index.js';
import type { TensionsQueryVariables } from '../gql/graphql.js';
import { useI18n } from '../i18n/index.js';
import { ActorField, UserField } from './pickers.js';
import { BulkBar, BulkProgress, useBulkRunner, type BulkItem } from './bulk-actions.js';
import { Button, Dialog } from './ui.js';

const BulkResolveDocument = graphql(`
  mutation BulkResolveTension($id: ID!) {
    resolveTension(id: $id) { tension { id state version } }
  }
`);
const BulkDropDocument = graphql(`
  mutation BulkDropTension($id: ID!) {
    dropTension(id: $id) { tension { id state version } }
  }
`);
const BulkReassignDocument = graphql(`
  mutation BulkReassignTension($id: ID!, $actorId: ID!) {
    reassignTension(id: $id, input: { actorId: $actorId }) { tension { id version } }
  }
`);
const BulkLeadDocument = graphql(`
  mutation BulkSetTensionLead($id: ID!, $leadUserId: ID) {
    setTensionLead(id: $id, input: { leadUserId: $leadUserId }) { tension { id version } }
  }
`);
const MatchingIdsDocument = graphql(`
  query BulkMatchingTensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $cursor: String) {
    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: 100, cursor: $cursor) {
      data { id name }
      nextCursor
    }
  }
`);

/** The most tensions "all matching" selects: a run past it is better done through the API. */
export const BULK_MATCHING_MAX = 5000;

export function useMatchingTensions() {
  const client = useClient();
  return async (variables: Omit<TensionsQueryVariables, 'limit' | 'cursor'>): Promise<{ items: BulkItem[]; capped: boolean }> => {
    const items: BulkItem[] = [];
    let cursor: string | null = null;
    do {
      const r = await client.query(MatchingIdsDocument, { ...variables, cursor }, { requestPolicy: 'network-only' }).toPromise();
      if (r.error || !r.data) throw r.error ?? new Error('no data');
      for (const d of r.data.tensions.data) items.push({ id: d.id, name: d.name, href: `/tensions/${d.id}` });
      cursor = r.data.tensions.nextCursor ?? null;
    } while (cursor && items.length < BULK_MATCHING_MAX);
    return { items: items.slice(0, BULK_MATCHING_MAX), capped: Boolean(cursor) };
  };
}

export function TensionBulkBar({ selected, onClear, onDone }: { selected: BulkItem[]; onClear: () => void; onDone: () => void }) {
  const { t } = useI18n();
  const client = useClient();
  const runner = useBulkRunner();
  const [dialog, setDialog] = useState<'reassign' | 'lead' | null>(null);
  const [actorId, setActorId] = useState('');
  const [leadUserId, setLeadUserId] = useState('');
  const context = { additionalTypenames: ['Tension', 'Actor'] };

  const go = async (label: string, act: (item: BulkItem) => Promise<{ error?: import('urql').CombinedError }>) => {
    setDialog(null);
    await runner.start(label, selected, async (item) => (await act(item)).error);
    onDone();
  };
  const resolve = () => go(t('bulk.tensions.resolve'), (i) => client.mutation(BulkResolveDocument, { id: i.id }, context).toPromise());
  const drop = () => go(t('bulk.tensions.drop'), (i) => client.mutation(BulkDropDocument, { id: i.id }, context).toPromise());
  const reassign = () => go(t('bulk.tensions.reassign'), (i) => client.mutation(BulkReassignDocument, { id: i.id, actorId }, context).toPromise());
  const lead = () => go(t('bulk.tensions.lead'), (i) => client.mutation(BulkLeadDocument, { id: i.id, leadUserId: leadUserId || null }, context).toPromise());

  const busy = runner.run?.running ?? false;
  return (
    <>
      {selected.length ? (
        <BulkBar count={selected.length} onClear={onClear}>
          <Button onClick={() => void resolve()} disabled={busy}>
            {t('bulk.tensions.resolve')}
          </Button>
          <Button onClick={() => void drop()} disabled={busy}>
            {t('bulk.tensions.drop')}
          </Button>
          <Button onClick={() => setDialog('reassign')} disabled={busy}>
            {t('bulk.tensions.reassign')}…
          </Button>
          <Button onClick={() => setDialog('lead')} disabled={busy}>
            {t('bulk.tensions.lead')}…
          </Button>
        </BulkBar>
      ) : null}
      {runner.run ? <BulkProgress run={runner.run} onStop={runner.stop} onClose={runner.clear} /> : null}
      <Dialog
        title={t('bulk.tensions.reassign')}
        open={dialog === 'reassign'}
        onClose={() => setDialog(null)}
        footer={
          <>
            <Button onClick={() => setDialog(null)}>{t('common.cancel')}</Button>
            <Button variant="primary" disabled={!actorId} onClick={() => void reassign()}>
              {t('bulk.apply', { count: selected.length })}
            </Button>
          </>
        }
      >
        <ActorField label={t('tensions.col.actor')} value={actorId} onChange={(id) => setActorId(id)} />
      </Dialog>
      <Dialog
        title={t('bulk.tensions.lead')}
        open={dialog === 'lead'}
        onClose={() => setDialog(null)}
        footer={
          <>
            <Button onClick={() => setDialog(null)}>{t('common.cancel')}</Button>
            <Button variant="primary" onClick={() => void lead()}>
              {t('bulk.apply', { count: selected.length })}
            </Button>
          </>
        }
      >
        <UserField label={t('tensions.col.lead')} status="active" noneLabel={t('tension.noLead')} value={leadUserId} onChange={(id) => setLeadUserId(id)} />
      </Dialog>
    </>
  );
}
