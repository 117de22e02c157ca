// API keys, for an agent user (provision/revoke/rotate) or for oneself (self-service):
// metadata only in lists; the plaintext appears once, right after creation, with a copy button.
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { fieldMessage } from '../lib/refusals.js';
import { usePager } from '../lib/use-pager.js';
import { Alert, Badge, Button, ConfirmDialog, CopyButton, Dialog, EmptyState, ErrorAlert, Field, Loading, Pager } from './ui.js';

const UserApiKeysDocument = graphql(`
  query UserApiKeys($userId: ID!, $cursor: String) {
    userApiKeys(userId: $userId, limit: 20, cursor: $cursor) {
      data { id name prefix createdAt lastUsedAt expiresAt revokedAt }
      nextCursor
    }
  }
`);
const MyApiKeysDocument = graphql(`
  query MyApiKeys($cursor: String) {
    myApiKeys(limit: 20, cursor: $cursor) {
      data { id name prefix createdAt lastUsedAt expiresAt revokedAt }
      nextCursor
    }
  }
`);
const ProvisionDocument = graphql(`
  mutation ProvisionApiKey($userId: ID!, $input: CreateApiKeyInput!) {
    provisionApiKey(userId: $userId, input: $input) { id name prefix key }
  }
`);
const RevokeDocument = graphql(`
  mutation RevokeApiKey($userId: ID!, $keyId: ID!) {
    revokeApiKey(userId: $userId, keyId: $keyId)
  }
`);
const CreateMyDocument = graphql(`
  mutation CreateMyApiKey($input: CreateApiKeyInput!) {
    createMyApiKey(input: $input) { id name prefix key }
  }
`);
const RevokeMyDocument = graphql(`
  mutation RevokeMyApiKey($keyId: ID!) {
    revokeMyApiKey(keyId: $keyId)
  }
`);

interface KeyMeta {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt?: string | null;
  expiresAt?: string | null;
  revokedAt?: string | null;
}

interface Props {
  /** the agent whose keys these are; omitted: the signed-in user's own keys */
  userId?: string;
  /** the agent's name, for the title of a new key's dialog */
  userName?: string;
  canWrite: boolean;
}

const ctx = { additionalTypenames: ['ApiKey', 'CreatedApiKey'] };

export function ApiKeys({ userId, userName, canWrite }: Props) {
  const { t, formatDate } = useI18n();
  const pager = usePager();
  const context = useMemo(() => ctx, []);
  const [userKeys, refetchUser] = useQuery({ query: UserApiKeysDocument, variables: { userId: userId ?? '', cursor: pager.cursor }, pause: !userId, context });
  const [myKeys, refetchMine] = useQuery({ query: MyApiKeysDocument, variables: { cursor: pager.cursor }, pause: Boolean(userId), context });
  const [, provision] = useMutation(ProvisionDocument);
  const [, createMine] = useMutation(CreateMyDocument);
  const [, revoke] = useMutation(RevokeDocument);
  const [, revokeMine] = useMutation(RevokeMyDocument);
  const [creating, setCreating] = useState(false);
  const [plaintext, setPlaintext] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<{ key: KeyMeta; rotate: boolean } | null>(null);
  const [confirmError, setConfirmError] = useState<CombinedError | undefined>();

  const state = userId ? userKeys : myKeys;
  const page = userId ? userKeys.data?.userApiKeys : myKeys.data?.myApiKeys;
  const refetch = () => (userId ? refetchUser : refetchMine)({ requestPolicy: 'network-only' });

  const createKey = async (input: { name: string; expiresAt: string | null }) => {
    if (userId) {
      const r = await provision({ userId, input }, ctx);
      return { error: r.error, key: r.data?.provisionApiKey.key ?? undefined };
    }
    const r = await createMine({ input }, ctx);
    return { error: r.error, key: r.data?.createMyApiKey.key ?? undefined };
  };
  const revokeKey = async (keyId: string) => (userId ? revoke({ userId, keyId }, ctx) : revokeMine({ keyId }, ctx));

  const onConfirm = async () => {
    if (!confirm) return;
    setConfirmError(undefined);
    if (confirm.rotate) {
      // rotation: the new key first, so there is never a moment without a working key
      const created = await createKey({ name: confirm.key.name, expiresAt: null });
      if (created.error || !created.key) return setConfirmError(created.error);
      const r = await revokeKey(confirm.key.id);
      setConfirm(null);
      setPlaintext(created.key);
      if (r.error) setConfirmError(r.error);
      return;
    }
    const r = await revokeKey(confirm.key.id);
    if (r.error) return setConfirmError(r.error);
    setConfirm(null);
  };

  return (
    <div className="stack">
      {canWrite ? (
        <div>
          <Button variant="primary" onClick={() => setCreating(true)}>+ {userId ? t('keys.provision') : t('keys.create')}</Button>
        </div>
      ) : null}
      {confirmError && !confirm ? <ErrorAlert error={confirmError} /> : null}
      {state.error && !page ? (
        <ErrorAlert error={state.error} onRetry={refetch} />
      ) : !page ? (
        state.fetching ? <Loading /> : null
      ) : page.data.length === 0 && pager.page === 1 ? (
        <EmptyState>{t('keys.empty')}</EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table className="table" aria-label={t('keys.title')}>
              <thead>
                <tr>
                  <th scope="col">{t('keys.name')}</th>
                  <th scope="col">{t('keys.prefix')}</th>
                  <th scope="col">{t('common.created')}</th>
                  <th scope="col">{t('keys.lastUsed')}</th>
                  <th scope="col">{t('keys.expires')}</th>
                  <th scope="col"><span className="visually-hidden">{t('common.actions')}</span></th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((k) => (
                  <tr key={k.id} className={k.revokedAt ? 'row-muted' : undefined}>
                    <td className="strong">{k.name} {k.revokedAt ? <Badge tone="grey">{t('keys.revoked')}</Badge> : null}</td>
                    <td data-label={t('keys.prefix')}><code>{k.prefix}…</code></td>
                    <td className="nowrap" data-label={t('common.created')}>{formatDate(k.createdAt)}</td>
                    <td className="nowrap" data-label={t('keys.lastUsed')}>{k.lastUsedAt ? formatDate(k.lastUsedAt) : <span className="muted">{t('common.never')}</span>}</td>
                    <td className="nowrap" data-label={t('keys.expires')}>{k.expiresAt ? formatDate(k.expiresAt) : <span className="muted">{t('common.never')}</span>}</td>
                    <td className="row-actions">
                      {canWrite && !k.revokedAt ? (
                        <>
                          <Button variant="ghost" onClick={() => setConfirm({ key: k, rotate: true })} aria-label={`${t('keys.rotate')}: ${k.name}`}>{t('keys.rotate')}</Button>
                          <Button variant="ghost" className="text-danger" onClick={() => setConfirm({ key: k, rotate: false })} aria-label={`${t('keys.revoke')}: ${k.name}`}>{t('keys.revoke')}</Button>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={pager.page} hasNext={Boolean(page.nextCursor)} onPrevious={pager.previous} onNext={() => page.nextCursor && pager.next(page.nextCursor)} />
        </>
      )}
      {creating ? (
        <CreateKeyDialog
          title={userId ? t('keys.provision') : t('keys.create')}
          onClose={() => setCreating(false)}
          create={createKey}
          onCreated={(key) => {
            setCreating(false);
            setPlaintext(key);
          }}
        />
      ) : null}
      <ConfirmDialog
        open={confirm !== null}
        title={confirm ? t(confirm.rotate ? 'keys.rotate.title' : 'keys.revoke.title', { name: confirm.key.name }) : ''}
        body={confirm?.rotate ? t('keys.rotate.body') : t('keys.revoke.body')}
        confirmLabel={confirm?.rotate ? t('keys.rotate') : t('keys.revoke')}
        error={confirmError}
        onClose={() => { setConfirm(null); setConfirmError(undefined); }}
        onConfirm={() => void onConfirm()}
      />
      <KeyOnceDialog title={userId ? t('keys.created.titleAgent', { name: userName ?? '' }) : t('keys.created.title')} plaintext={plaintext} onClose={() => setPlaintext(null)} />
    </div>
  );
}

function CreateKeyDialog({ title, onClose, create, onCreated }: {
  title: string;
  onClose: () => void;
  create: (input: { name: string; expiresAt: string | null }) => Promise<{ error?: CombinedError; key?: string }>;
  onCreated: (key: string) => void;
}) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [error, setError] = useState<CombinedError | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const r = await create({ name, expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null });
    setBusy(false);
    if (r.key) onCreated(r.key);
    else setError(r.error);
  };
  return (
    <Dialog title={title} open onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        {error ? <ErrorAlert error={error} /> : null}
        <Field label={t('keys.name')} error={fieldMessage(t, error, 'name')}>
          {(p) => <input {...p} name="keyName" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
        </Field>
        <Field label={t('keys.expiresAt')} optional error={fieldMessage(t, error, 'expiresAt')}>
          {(p) => <input {...p} name="expiresAt" type="datetime-local" value={expiresAt} onChange={(e) => setExpiresAt(e.target.value)} />}
        </Field>
        <div className="dialog-footer">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" variant="primary" disabled={busy}>{t('common.create')}</Button>
        </div>
      </form>
    </Dialog>
  );
}

function KeyOnceDialog({ title, plaintext, onClose }: { title: string; plaintext: string | null; onClose: () => void }) {
  const { t } = useI18n();
  return (
    <Dialog title={title} dismissible={false} open={plaintext !== null} onClose={onClose} footer={<Button variant="primary" onClick={onClose}>{t('keys.created.done')}</Button>}>
      <Alert kind="warning">{t('keys.created.warning')}</Alert>
      <Field label={t('keys.created.label')}>
        {(p) => (
          <div className="input-with-button">
            <input {...p} className="mono" readOnly value={plaintext ?? ''} data-copy-source data-testid="api-key-plaintext" onFocus={(e) => e.target.select()} />
            <CopyButton text={plaintext ?? ''} />
          </div>
        )}
      </Field>
    </Dialog>
  );
}
