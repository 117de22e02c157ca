// API keys, for an agent user (provision/revoke/rotate) or for oneself (self-service):
// metadata only in lists; the plaintext appears once, right after creation, with a copy button.
import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { expand, PermissionCatalogueDocument } from '../lib/permissions.js';
import { usePager } from '../lib/use-pager.js';
import { KeyExpiry, KeyPermissions } from './key-bits.js';
import { CreateKeyDialog, KeyOnceDialog, RotateKeyDialog, type Outcome, type NewKey } from './key-dialogs.js';
import { KeyBulkBar } from './bulk-keys.js';
import type { BulkItem } from './bulk-actions.js';
import { Alert, Badge, Button, ConfirmDialog, EmptyState, ErrorAlert, Loading, Pager } from './ui.js';

const UserApiKeysDocument = graphql(`
  query UserApiKeys($userId: ID!, $cursor: String) {
    userApiKeys(userId: $userId, limit: 20, cursor: $cursor) {
      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }
      nextCursor
    }
  }
`);
const MyApiKeysDocument = graphql(`
  query MyApiKeys($cursor: String) {
    myApiKeys(limit: 20, cursor: $cursor) {
      data { id name prefix permissions createdAt lastUsedAt expiresAt revokedAt rotatedFromId }
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
const RotateDocument = graphql(`
  mutation RotateUserApiKey($userId: ID!, $keyId: ID!, $input: RotateApiKeyInput) {
    rotateUserApiKey(userId: $userId, keyId: $keyId, input: $input) { id name prefix key }
  }
`);
const RotateMyDocument = graphql(`
  mutation RotateMyApiKey($keyId: ID!, $input: RotateApiKeyInput) {
    rotateMyApiKey(keyId: $keyId, input: $input) { id name prefix key }
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
  /** what the key's user holds (grants, wildcards allowed), when known: a new key is offered no more */
  userGrants?: string[];
  canWrite: boolean;
}

const ctx = { additionalTypenames: ['ApiKey', 'CreatedApiKey'] };

export function ApiKeys({ userId, userName, userGrants, canWrite }: Props) {
  const { t, formatDate } = useI18n();
  // "expires in …" counts from now; a minute's precision is all it shows
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const pager = usePager();
  const context = useMemo(() => ctx, []);
  const [userKeys, refetchUser] = useQuery({ query: UserApiKeysDocument, variables: { userId: userId ?? '', cursor: pager.cursor }, pause: !userId, context });
  const [myKeys, refetchMine] = useQuery({ query: MyApiKeysDocument, variables: { cursor: pager.cursor }, pause: Boolean(userId), context });
  const [, provision] = useMutation(ProvisionDocument);
  const [, createMine] = useMutation(CreateMyDocument);
  const [, revoke] = useMutation(RevokeDocument);
  const [, revokeMine] = useMutation(RevokeMyDocument);
  const [, rotate] = useMutation(RotateDocument);
  const [, rotateMine] = useMutation(RotateMyDocument);
  const [catalogue] = useQuery({ query: PermissionCatalogueDocument, pause: !canWrite });
  const offered = useMemo(() => {
    const all = catalogue.data?.permissions ?? [];
    return userGrants ? expand(userGrants, all) : all;
  }, [catalogue.data, userGrants]);
  const [creating, setCreating] = useState(false);
  const [plaintext, setPlaintext] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<KeyMeta | null>(null);
  const [rotating, setRotating] = useState<KeyMeta | null>(null);
  const [confirmError, setConfirmError] = useState<CombinedError | undefined>();
  // said after a revocation: it cannot be undone, so no Undo is offered
  const [revokedName, setRevokedName] = useState<string | null>(null);
  // bulk revocation (issue 36): the active keys of the page shown
  const [selected, setSelected] = useState<Map<string, BulkItem>>(new Map());
  const toggle = (items: BulkItem[], on: boolean) =>
    setSelected((prev) => {
      const next = new Map(prev);
      for (const i of items) {
        if (on) next.set(i.id, i);
        else next.delete(i.id);
      }
      return next;
    });

  const state = userId ? userKeys : myKeys;
  const page = userId ? userKeys.data?.userApiKeys : myKeys.data?.myApiKeys;
  const refetch = () => (userId ? refetchUser : refetchMine)({ requestPolicy: 'network-only' });
  // two keys share a name after a rotation: the prefix tells them apart in a selection and a failure list
  const keyLabel = (k: KeyMeta) => `${k.name} (${k.prefix}…)`;
  const selectable: BulkItem[] = (page?.data ?? []).filter((k) => !k.revokedAt).map((k) => ({ id: k.id, name: keyLabel(k) }));

  const createKey = async (input: NewKey) => {
    if (userId) {
      const r = await provision({ userId, input }, ctx);
      return { error: r.error, key: r.data?.provisionApiKey.key ?? undefined };
    }
    const r = await createMine({ input }, ctx);
    return { error: r.error, key: r.data?.createMyApiKey.key ?? undefined };
  };
  const revokeKey = async (keyId: string) => (userId ? revoke({ userId, keyId }, ctx) : revokeMine({ keyId }, ctx));
  const rotateKey = async (keyId: string, overlapSeconds: number): Outcome => {
    const input = { overlapSeconds };
    if (userId) {
      const r = await rotate({ userId, keyId, input }, ctx);
      return { error: r.error, key: r.data?.rotateUserApiKey.key ?? undefined };
    }
    const r = await rotateMine({ keyId, input }, ctx);
    return { error: r.error, key: r.data?.rotateMyApiKey.key ?? undefined };
  };

  const onConfirm = async () => {
    if (!confirm) return;
    setConfirmError(undefined);
    const r = await revokeKey(confirm.id);
    if (r.error) return setConfirmError(r.error);
    setRevokedName(confirm.name);
    setConfirm(null);
  };

  return (
    <div className="stack">
      {canWrite ? (
        <div>
          <Button variant="primary" onClick={() => setCreating(true)}>
            + {userId ? t('keys.provision') : t('keys.create')}
          </Button>
        </div>
      ) : null}
      {confirmError && !confirm ? <ErrorAlert error={confirmError} /> : null}
      {revokedName !== null ? <Alert kind="success">{t('keys.revokedNotice', { name: revokedName })}</Alert> : null}
      {state.error && !page ? (
        <ErrorAlert error={state.error} onRetry={refetch} />
      ) : !page ? (
        state.fetching ? (
          <Loading />
        ) : null
      ) : page.data.length === 0 && pager.page === 1 ? (
        <EmptyState>{t('keys.empty')}</EmptyState>
      ) : (
        <>
          {canWrite ? (
            <KeyBulkBar
              userId={userId}
              selected={[...selected.values()]}
              onClear={() => setSelected(new Map())}
              onDone={() => {
                setSelected(new Map());
                setRevokedName(null);
                refetch();
              }}
            />
          ) : null}
          <div className="table-wrap">
            <table className="table" aria-label={t('keys.title')}>
              <thead>
                <tr>
                  {canWrite ? (
                    <th scope="col" className="select-cell">
                      <input
                        type="checkbox"
                        aria-label={t('bulk.selectPage')}
                        checked={selectable.length > 0 && selectable.every((k) => selected.has(k.id))}
                        disabled={selectable.length === 0}
                        onChange={(e) => toggle(selectable, e.target.checked)}
                      />
                    </th>
                  ) : null}
                  <th scope="col">{t('keys.name')}</th>
                  <th scope="col">{t('keys.prefix')}</th>
                  <th scope="col">{t('keys.permissions')}</th>
                  <th scope="col">{t('common.created')}</th>
                  <th scope="col">{t('keys.lastUsed')}</th>
                  <th scope="col">{t('keys.expires')}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t('common.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((k) => (
                  <tr key={k.id} className={k.revokedAt ? 'row-muted' : undefined}>
                    {canWrite ? (
                      <td className="select-cell">
                        {!k.revokedAt ? (
                          <input
                            type="checkbox"
                            aria-label={t('bulk.selectRow', { name: keyLabel(k) })}
                            checked={selected.has(k.id)}
                            onChange={(e) => toggle([{ id: k.id, name: keyLabel(k) }], e.target.checked)}
                          />
                        ) : null}
                      </td>
                    ) : null}
                    <td className="strong">
                      {k.name} {k.revokedAt ? <Badge tone="grey">{t('keys.revoked')}</Badge> : null}
                      {/* after a rotation both keys carry the same name: say which is which */}
                      {!k.revokedAt && k.rotatedFromId ? (
                        <Badge tone="blue">{t('keys.replacesKey', { prefix: page.data.find((o) => o.id === k.rotatedFromId)?.prefix ?? '' })}</Badge>
                      ) : null}
                      {!k.revokedAt && page.data.some((o) => o.rotatedFromId === k.id) ? (
                        <Badge tone="grey">{t('keys.replacedByKey', { prefix: page.data.find((o) => o.rotatedFromId === k.id)?.prefix ?? '' })}</Badge>
                      ) : null}
                    </td>
                    <td data-label={t('keys.prefix')}>
                      <code>{k.prefix}…</code>
                    </td>
                    <td data-label={t('keys.permissions')}>
                      <KeyPermissions permissions={k.permissions} />
                    </td>
                    <td className="nowrap" data-label={t('common.created')}>
                      {formatDate(k.createdAt)}
                    </td>
                    <td className="nowrap" data-label={t('keys.lastUsed')}>
                      {k.lastUsedAt ? formatDate(k.lastUsedAt) : <span className="muted">{t('common.never')}</span>}
                    </td>
                    <td className="nowrap" data-label={t('keys.expires')}>
                      {k.revokedAt ? <span className="muted">–</span> : <KeyExpiry expiresAt={k.expiresAt} now={now} />}
                    </td>
                    <td className="row-actions">
                      {canWrite && !k.revokedAt ? (
                        <>
                          <Button variant="ghost" onClick={() => setRotating(k)} aria-label={`${t('keys.rotate')}: ${k.name}`}>
                            {t('keys.rotate')}
                          </Button>
                          <Button variant="ghost" className="text-danger" onClick={() => setConfirm(k)} aria-label={`${t('keys.revoke')}: ${k.name}`}>
                            {t('keys.revoke')}
                          </Button>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={pager.page}
            hasNext={Boolean(page.nextCursor)}
            onPrevious={pager.previous}
            onNext={() => page.nextCursor && pager.next(page.nextCursor)}
          />
        </>
      )}
      {creating ? (
        <CreateKeyDialog
          title={userId ? t('keys.provision') : t('keys.create')}
          onClose={() => setCreating(false)}
          create={createKey}
          offered={offered}
          onCreated={(key) => {
            setCreating(false);
            setPlaintext(key);
          }}
        />
      ) : null}
      <ConfirmDialog
        open={confirm !== null}
        title={confirm ? t('keys.revoke.title', { name: confirm.name }) : ''}
        body={t('keys.revoke.body')}
        confirmLabel={t('keys.revoke')}
        error={confirmError}
        onClose={() => {
          setConfirm(null);
          setConfirmError(undefined);
        }}
        onConfirm={() => void onConfirm()}
      />
      {rotating ? (
        <RotateKeyDialog
          keyName={rotating.name}
          onClose={() => setRotating(null)}
          rotate={(overlapSeconds) => rotateKey(rotating.id, overlapSeconds)}
          onRotated={(key) => {
            setRotating(null);
            setPlaintext(key);
          }}
        />
      ) : null}
      <KeyOnceDialog
        title={userId ? t('keys.created.titleAgent', { name: userName ?? '' }) : t('keys.created.title')}
        plaintext={plaintext}
        onClose={() => setPlaintext(null)}
      />
    </div>
  );
}
