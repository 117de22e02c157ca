// The API key dialogs: a new key (name, expiry, permissions), a rotation (how long the old key keeps
// working), and the new key's plaintext, shown once and closed only by "I have copied the key".
import { useState, type FormEvent } from 'react';
import type { CombinedError } from 'urql';
import { useI18n } from '../i18n/index.js';
import { fieldMessage } from '../lib/refusals.js';
import { KeyPermissionPicker, RotateDialog } from './key-bits.js';
import { Alert, Button, CopyButton, Dialog, ErrorAlert, Field } from './ui.js';

export interface NewKey {
  name: string;
  expiresAt: string | null;
  permissions: string[] | null;
}
export type Outcome = Promise<{ error?: CombinedError; key?: string }>;

export function CreateKeyDialog({
  title,
  onClose,
  create,
  offered,
  onCreated,
}: {
  title: string;
  onClose: () => void;
  create: (input: NewKey) => Outcome;
  offered: string[];
  onCreated: (key: string) => void;
}) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [permissions, setPermissions] = useState<string[] | null>(null);
  const [empty, setEmpty] = useState(false);
  const [error, setError] = useState<CombinedError | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // a key narrowed to nothing could do nothing: ask for a choice instead of sending it
    if (permissions !== null && permissions.length === 0) return setEmpty(true);
    setBusy(true);
    const r = await create({ name, expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null, permissions });
    setBusy(false);
    if (r.key) onCreated(r.key);
    else setError(r.error);
  };
  return (
    <Dialog title={title} open onClose={onClose}>
      <form noValidate className="stack" onSubmit={submit}>
        {error ? <ErrorAlert error={error} /> : null}
        <Field label={t('keys.name')} error={fieldMessage(t, error, 'name')}>
          {(p) => <input {...p} name="keyName" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
        </Field>
        <Field label={t('keys.expiresAt')} optional error={fieldMessage(t, error, 'expiresAt')}>
          {(p) => <input {...p} name="expiresAt" type="datetime-local" value={expiresAt} onChange={(e) => setExpiresAt(e.target.value)} />}
        </Field>
        <KeyPermissionPicker
          offered={offered}
          value={permissions}
          onChange={(next) => {
            setPermissions(next);
            setEmpty(false);
          }}
          error={empty ? t('keys.permissions.none') : fieldMessage(t, error, 'permissions')}
        />
        <div className="dialog-footer">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" variant="primary" disabled={busy}>
            {t('common.create')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

export function RotateKeyDialog({
  keyName,
  onClose,
  rotate,
  onRotated,
}: {
  keyName: string;
  onClose: () => void;
  rotate: (overlapSeconds: number) => Outcome;
  onRotated: (key: string) => void;
}) {
  const { t } = useI18n();
  return (
    <RotateDialog
      title={t('keys.rotate.title', { name: keyName })}
      body="keys.rotate.body"
      legend="keys.rotate.overlap"
      submit="keys.rotate"
      onClose={onClose}
      rotate={async (overlap) => {
        const r = await rotate(overlap);
        if (!r.key) return r.error;
        onRotated(r.key);
        return undefined;
      }}
    />
  );
}

export function KeyOnceDialog({ title, plaintext, onClose }: { title: string; plaintext: string | null; onClose: () => void }) {
  const { t } = useI18n();
  return (
    <Dialog
      title={title}
      dismissible={false}
      open={plaintext !== null}
      onClose={onClose}
      footer={
        <Button variant="primary" onClick={onClose}>
          {t('keys.created.done')}
        </Button>
      }
    >
      <Alert kind="warning">{t('keys.created.warning')}</Alert>
      <Field label={t('keys.created.label')}>
        {(p) => (
          <div className="input-with-button">
            <input
              {...p}
              className="mono"
              readOnly
              value={plaintext ?? ''}
              data-copy-source
              data-testid="api-key-plaintext"
              onFocus={(e) => e.target.select()}
            />
            <CopyButton text={plaintext ?? ''} />
          </div>
        )}
      </Field>
    </Dialog>
  );
}
