// Actors: list with type filter and search, create, rename, and delete (which discards their tensions).
import { ListPaging, limitParam, pageSize } from '../components/list-footer.js';
import { asActorType } from '../lib/enums';
import { useMemo, useState, type FormEvent } from 'react';
import { useClient, useMutation } from 'urql';
import { graphql } from '../gql/index.js';
import type { ActorsQuery } from '../gql/graphql.js';
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { errorCode } from '../lib/errors.js';
import { fieldMessage } from '../lib/refusals.js';
import { Link, withQuery } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { usePager, useUrlFilters } from '../lib/use-pager.js';
import { useTitle } from '../lib/use-title.js';
import { Alert, Badge, Button, ConfirmDialog, Dialog, ErrorAlert, Field, PageHeader, RetryingNotice, SearchField, ListStates } from '../components/ui.js';
import { ConflictDialog } from '../components/conflict-dialog.js';
import { useKeptQuery } from '../lib/use-kept-query.js';
import { ExportLinks } from '../components/export-links.js';

const ActorsDocument = graphql(`
  query Actors($type: ActorType, $q: String, $limit: Int, $cursor: String) {
    actors(type: $type, q: $q, limit: $limit, cursor: $cursor) {
      data { id name type version tensionCount createdAt updatedAt }
      nextCursor
    }
    actorsTotal(type: $type, q: $q) { count exact }
  }
`);
const CreateActorDocument = graphql(`
  mutation CreateActor($input: CreateActorInput!) {
    createActor(input: $input) { id name type }
  }
`);
const UpdateActorDocument = graphql(`
  mutation UpdateActor($id: ID!, $input: UpdateActorInput!) {
    updateActor(id: $id, input: $input) { id name type version }
  }
`);
const ActorVersionDocument = graphql(`
  query ActorVersion($id: ID!) {
    actor(id: $id) { id name type version }
  }
`);
const DeleteActorDocument = graphql(`
  mutation DeleteActor($id: ID!) {
    deleteActor(id: $id)
  }
`);

export const ACTOR_TYPES = ['organization', 'individual', 'virtual', 'agent'] as const;
type Actor = ActorsQuery['actors']['data'][number];

export function ActorsPage() {
  const { t, formatDate } = useI18n();
  useTitle(t('actors.title'));
  const { can } = useSession();
  const [filters, setFilters] = useUrlFilters(['type', 'q', 'limit'] as const);
  const { type, q: search } = filters;
  const limit = pageSize(filters.limit);
  // the search box follows the URL (Back, a cleared filter) but keeps what is being typed
  const [q, setQ] = useState(search);
  const [searched, setSearched] = useState(search);
  if (searched !== search) {
    setSearched(search);
    setQ(search);
  }
  const pager = usePager();
  const context = useMemo(() => ({ additionalTypenames: ['Actor'] }), []);
  // a failed refetch keeps the list (and an open dialog) as it was, with a notice, and retries by itself
  const [{ data, error, fetching, retrying }, refetch] = useKeptQuery({
    query: ActorsDocument,
    variables: { type: asActorType(type), q: search || null, limit, cursor: pager.cursor },
    context,
  });
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<Actor | null>(null);
  const [deleting, setDeleting] = useState<Actor | null>(null);
  const [deleted, setDeleted] = useState(false);
  const [deleteState, deleteActor] = useMutation(DeleteActorDocument);

  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setFilters({ q: q.trim() });
  };
  const rows = data?.actors.data ?? [];

  return (
    <>
      <PageHeader
        title={t('actors.title')}
        actions={
          <>
            <ExportLinks list="actors" permission="actors:read" filters={{ type, q: search }} />
            {can('actors:write') ? (
              <Button variant="primary" onClick={() => setCreating(true)}>
                + {t('actors.new')}
              </Button>
            ) : null}
          </>
        }
      />
      <RetryingNotice error={retrying} />
      {deleted ? <Alert kind="success">{t('actors.deleted')}</Alert> : null}
      <form noValidate className="filters card" role="search" aria-label={t('common.filters')} onSubmit={onSearch}>
        <SearchField label={t('common.search')} value={q} onChange={setQ} />
        <Field label={t('common.type')}>
          {(p) => (
            <select {...p} name="type" value={type} onChange={(e) => setFilters({ type: e.target.value })}>
              <option value="">{t('common.any')}</option>
              {ACTOR_TYPES.map((ty) => (
                <option key={ty} value={ty}>
                  {t(`actors.type.${ty}` as MessageKey)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      <ListStates
        data={data}
        error={error}
        fetching={fetching}
        refetch={refetch}
        empty={() => (rows.length === 0 && pager.page === 1 ? (type || search ? t('actors.emptyFiltered') : t('actors.empty')) : null)}
      >
        {(data) => (
          <>
            <div className="table-wrap card">
              <table className="table">
                <caption className="visually-hidden">{t('actors.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('common.name')}</th>
                    <th scope="col">{t('common.type')}</th>
                    <th scope="col" className="num">
                      {t('actors.tensions')}
                    </th>
                    <th scope="col">{t('common.updated')}</th>
                    <th scope="col">
                      <span className="visually-hidden">{t('common.actions')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((a) => (
                    <tr key={a.id}>
                      <td className="strong">{a.name}</td>
                      <td data-label={t('common.type')}>
                        <Badge>{t(`actors.type.${a.type}` as MessageKey)}</Badge>
                      </td>
                      <td className="num" data-label={t('actors.tensions')}>
                        {can('tensions:read') ? <Link to={withQuery('/tensions', { actorId: a.id })}>{a.tensionCount}</Link> : a.tensionCount}
                      </td>
                      <td className="muted nowrap" data-label={t('common.updated')}>
                        {formatDate(a.updatedAt)}
                      </td>
                      <td className="row-actions">
                        {can('actors:write') ? (
                          <Button variant="ghost" onClick={() => setRenaming(a)} aria-label={`${t('common.edit')}: ${a.name}`}>
                            {t('common.edit')}
                          </Button>
                        ) : null}
                        {can('actors:delete') ? (
                          <Button variant="ghost" className="text-danger" onClick={() => setDeleting(a)} aria-label={`${t('common.delete')}: ${a.name}`}>
                            {t('common.delete')}
                          </Button>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <ListPaging
              pager={pager}
              nextCursor={data.actors.nextCursor}
              limit={limit}
              shown={rows.length}
              total={data.actorsTotal}
              onPageSize={(n) => setFilters({ limit: limitParam(n) })}
            />
          </>
        )}
      </ListStates>
      {creating ? <ActorForm onClose={() => setCreating(false)} /> : null}
      {renaming ? <ActorForm actor={renaming} onClose={() => setRenaming(null)} /> : null}
      <ConfirmDialog
        open={deleting !== null}
        title={t('actors.delete.title', { name: deleting?.name ?? '' })}
        body={deleting && deleting.tensionCount > 0 ? t('actors.delete.body', { count: deleting.tensionCount }) : t('actors.delete.none')}
        confirmLabel={t('common.delete')}
        busy={deleteState.fetching}
        error={deleteState.error}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          const r = await deleteActor({ id: deleting.id }, { additionalTypenames: ['Actor', 'Tension', 'User'] });
          if (!r.error) {
            setDeleting(null);
            setDeleted(true);
          }
        }}
      />
    </>
  );
}

function ActorForm({ actor, onClose }: { actor?: Actor; onClose: () => void }) {
  const { t } = useI18n();
  const [name, setName] = useState(actor?.name ?? '');
  const [type, setType] = useState<string>(actor?.type ?? 'organization');
  const [createState, create] = useMutation(CreateActorDocument);
  const [updateState, update] = useMutation(UpdateActorDocument);
  const client = useClient();
  // the version this rename is based on: the one listed when the dialog opened (never a refetch's meanwhile)
  const [version] = useState(actor?.version);
  // a save refused with version_conflict: the actor as saved now, shown beside what was typed
  const [conflict, setConflict] = useState<{ name: string; version: number } | null>(null);
  // a conflict is shown in the conflict dialog, not as an error
  const failed = createState.error ?? updateState.error;
  const error = errorCode(failed) === 'VERSION_CONFLICT' ? undefined : failed;
  const save = async (expectedVersion: number | undefined) => {
    const r = actor
      ? await update({ id: actor.id, input: { name, expectedVersion } }, { additionalTypenames: ['Actor', 'Tension'] })
      : await create({ input: { name, type: asActorType(type) ?? 'organization' } }, { additionalTypenames: ['Actor'] });
    if (actor && errorCode(r.error) === 'VERSION_CONFLICT') {
      setConflict((await client.query(ActorVersionDocument, { id: actor.id }, { requestPolicy: 'network-only' }).toPromise()).data?.actor ?? null);
      return;
    }
    setConflict(null);
    if (!r.error) onClose();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(version);
  };
  return (
    <>
      <Dialog title={actor ? t('actors.rename.title') : t('actors.create.title')} open onClose={onClose}>
        <form noValidate className="stack" onSubmit={submit}>
          {error ? <ErrorAlert error={error} /> : null}
          <Field label={t('common.name')} error={fieldMessage(t, error, 'name')}>
            {(p) => <input {...p} name="name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
          </Field>
          {actor ? null : (
            <Field label={t('common.type')} error={fieldMessage(t, error, 'type')}>
              {(p) => (
                <select {...p} name="type" value={type} onChange={(e) => setType(e.target.value)}>
                  {ACTOR_TYPES.map((ty) => (
                    <option key={ty} value={ty}>
                      {t(`actors.type.${ty}` as MessageKey)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          <div className="dialog-footer">
            <Button onClick={onClose}>{t('common.cancel')}</Button>
            <Button type="submit" variant="primary" disabled={createState.fetching || updateState.fetching}>
              {actor ? t('common.save') : t('common.create')}
            </Button>
          </div>
        </form>
      </Dialog>
      {/* beside the edit dialog, not in it: a nested dialog's close would reach the outer one's handlers */}
      {conflict ? (
        <ConflictDialog
          rows={[{ label: t('common.name'), theirs: conflict.name, mine: name }]}
          busy={updateState.fetching}
          onBack={() => setConflict(null)}
          onKeepTheirs={onClose}
          onApplyMine={() => void save(conflict.version)}
        />
      ) : null}
    </>
  );
}
