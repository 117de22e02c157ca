// The webhook endpoint dialogs: create or edit (URL, description, event types, enabled), rotate the secret
// (how long the old one keeps signing), and the secret shown once, closed only by "I have copied the secret".
import { useState, type FormEvent } from 'react';
import type { CombinedError } from 'urql';
import { useI18n } from '../i18n/index.js';
import type { TensionEventType } from '../gql/graphql.js';
import { fieldMessage } from '../lib/refusals.js';
import { RotateDialog } from './key-bits.js';
import { Alert, Button, CopyButton, Dialog, ErrorAlert, Field } from './ui.js';

/** Every event type an endpoint can subscribe to (the tension events, SPEC §14). */
export const EVENT_TYPES: readonly TensionEventType[] = [
  'TensionSensed',
  'TensionRenamed',
  'TensionRescored',
  'TensionContextRevised',
  'TensionLeadAssigned',
  'TensionLeadUnassigned',
  'TensionReassigned',
  'TensionResolved',
  'TensionDropped',
  'TensionReopened',
  'TensionRevived',
  'TensionDiscarded',
];

export interface EndpointForm {
  url: string;
  description: string | null;
  /** null: every event */
  types: string[] | null;
  enabled: boolean;
}
export type Outcome = Promise<{ error?: CombinedError; done?: boolean }>;

export function EndpointDialog({
  title,
  initial,
  onClose,
  save,
}: {
  title: string;
  initial: EndpointForm;
  onClose: () => void;
  save: (form: EndpointForm) => Outcome;
}) {
  const { t } = useI18n();
  const [form, setForm] = useState(initial);
  const [error, setError] = useState<CombinedError | undefined>();
  const [empty, setEmpty] = useState(false);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (form.types !== null && form.types.length === 0) return setEmpty(true);
    setBusy(true);
    const r = await save({ ...form, description: form.description?.trim() ? form.description : null });
    setBusy(false);
    if (r.done) onClose();
    else setError(r.error);
  };
  const toggle = (type: string, on: boolean) => {
    setEmpty(false);
    const types = form.types ?? [];
    setForm({ ...form, types: on ? [...types, type] : types.filter((x) => x !== type) });
  };
  return (
    <Dialog title={title} open onClose={onClose}>
      <form noValidate className="stack" onSubmit={submit}>
        {error ? <ErrorAlert error={error} /> : null}
        <Field label={t('webhooks.url')} hint={t('webhooks.url.hint')} error={fieldMessage(t, error, 'url')}>
          {(p) => (
            <input
              {...p}
              name="url"
              type="url"
              required
              maxLength={2048}
              value={form.url}
              onChange={(e) => setForm({ ...form, url: e.target.value })}
              autoFocus
            />
          )}
        </Field>
        <Field label={t('webhooks.description')} optional error={fieldMessage(t, error, 'description')}>
          {(p) => (
            <input
              {...p}
              name="description"
              maxLength={500}
              value={form.description ?? ''}
              onChange={(e) => setForm({ ...form, description: e.target.value })}
            />
          )}
        </Field>
        <fieldset className="checks">
          <legend>{t('webhooks.types')}</legend>
          <label className="check">
            <input type="radio" name="typesMode" checked={form.types === null} onChange={() => setForm({ ...form, types: null })} />
            {t('webhooks.types.all')}
          </label>
          <label className="check">
            <input type="radio" name="typesMode" checked={form.types !== null} onChange={() => setForm({ ...form, types: form.types ?? [] })} />
            {t('webhooks.types.some')}
          </label>
          {form.types !== null ? (
            <div className="checks" role="group" aria-label={t('webhooks.types.some')}>
              {EVENT_TYPES.map((type) => (
                <label key={type} className="check">
                  <input
                    type="checkbox"
                    name="types"
                    value={type}
                    checked={form.types?.includes(type) ?? false}
                    onChange={(e) => toggle(type, e.target.checked)}
                  />
                  <code>{type}</code>
                </label>
              ))}
            </div>
          ) : null}
          {empty ? <p className="field-error">{t('webhooks.types.none')}</p> : null}
        </fieldset>
        <label className="check">
          <input type="checkbox" name="enabled" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />
          {t('webhooks.enabled')}
        </label>
        <div className="dialog-footer">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" variant="primary" disabled={busy}>
            {t('common.save')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

export function RotateSecretDialog({ onClose, rotate }: { onClose: () => void; rotate: (overlapSeconds: number) => Outcome }) {
  const { t } = useI18n();
  return (
    <RotateDialog
      title={t('webhooks.rotate.title')}
      body="webhooks.rotate.body"
      legend="webhooks.rotate.overlap"
      submit="webhooks.rotate"
      onClose={onClose}
      rotate={async (overlap) => {
        const r = await rotate(overlap);
        return r.done ? undefined : r.error;
      }}
    />
  );
}

export function SecretOnceDialog({ secret, onClose }: { secret: string | null; onClose: () => void }) {
  const { t } = useI18n();
  return (
    <Dialog
      title={t('webhooks.secret.title')}
      dismissible={false}
      open={secret !== null}
      onClose={onClose}
      footer={
        <Button variant="primary" onClick={onClose}>
          {t('webhooks.secret.done')}
        </Button>
      }
    >
      <Alert kind="warning">{t('webhooks.secret.warning')}</Alert>
      <Field label={t('webhooks.secret.label')}>
        {(p) => (
          <div className="input-with-button">
            <input {...p} className="mono" readOnly value={secret ?? ''} data-copy-source data-testid="webhook-secret" onFocus={(e) => e.target.select()} />
            <CopyButton text={secret ?? ''} />
          </div>
        )}
      </Field>
    </Dialog>
  );
}
