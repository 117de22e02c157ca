// The API key dialogs: a new key (name, expiry, permissions), a rotation (how long the old key keeps
// working), and the new key's plaintext, shown once and closed only by "I have copied the key".
// The expiry is a day and a time typed in the app's language (issue 36: a native datetime input shows the
// browser's mm/dd/yyyy and AM/PM), read in the browser's time zone, which the field names.
import { useState, type FormEvent } from 'react';
import type { CombinedError } from 'urql';
import { useI18n } from '../i18n/index.js';
import { fieldMessage } from '../lib/refusals.js';
import { DayField, parseTime } from './day-field.js';
import { KeyPermissionPicker, RotateDialog } from './key-bits.js';
import { Alert, Button, CopyButton, Dialog, ErrorAlert, Field } from './ui.js';

export interface NewKey {
  name: string;
  expiresAt: string | null;
  permissions: string[] | null;
}
export type Outcome = Promise<{ error?: CombinedError; key?: string }>;

/** The browser's time zone, in which the expiry's day and time are read. */
const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** An ISO day and a time of day in the browser's time zone → the instant, as the API takes it. */
function expiryInstant(day: string, [hours, minutes]: readonly [number, number]): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d, hours, minutes).toISOString();
}

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
  const [expiryDay, setExpiryDay] = useState('');
  const [dayValid, setDayValid] = useState(true);
  const [expiryTime, setExpiryTime] = useState('00:00');
  const [timeChecked, setTimeChecked] = useState(false);
  const time = expiryTime.trim() === '' ? ([0, 0] as const) : parseTime(expiryTime);
  const [permissions, setPermissions] = useState<string[] | null>(null);
  const [empty, setEmpty] = useState(false);
  const [error, setError] = useState<CombinedError | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // a key narrowed to nothing could do nothing: ask for a choice instead of sending it
    if (permissions !== null && permissions.length === 0) return setEmpty(true);
    // the day and time fields say what is wrong with them; nothing is sent with an expiry not meant
    setTimeChecked(true);
    if (!dayValid || (expiryDay && !time)) return;
    setBusy(true);
    const r = await create({ name, expiresAt: expiryDay && time ? expiryInstant(expiryDay, time) : null, permissions });
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
        <div className="form-row">
          <DayField
            label={t('keys.expiresAt')}
            name="expiresOn"
            value={expiryDay}
            onChange={setExpiryDay}
            onValidity={setDayValid}
            error={fieldMessage(t, error, 'expiresAt')}
          />
          <Field
            label={t('keys.expiresTime')}
            hint={t('keys.expiresTime.hint', { pattern: t('common.timePattern'), zone: TIME_ZONE })}
            error={timeChecked && expiryDay && !time ? t('field.time', { pattern: t('common.timePattern') }) : undefined}
          >
            {(p) => (
              <input
                {...p}
                name="expiresTime"
                type="text"
                inputMode="numeric"
                autoComplete="off"
                placeholder={t('common.timePattern')}
                value={expiryTime}
                onChange={(e) => setExpiryTime(e.target.value)}
              />
            )}
          </Field>
        </div>
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
