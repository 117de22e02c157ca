// Pieces of the API key dialogs: the permission picker of a new key (null = all of the user's permissions),
// a key's permissions in the list, and how long until a key expires.
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import type { CombinedError } from 'urql';
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { Button, Dialog, ErrorAlert } from './ui.js';

/** Every `*:read` permission among those offered: the "Read only" preset. */
function readOnly(offered: string[]): string[] {
  return offered.filter((p) => p.endsWith(':read'));
}

export function KeyPermissionPicker({
  offered,
  value,
  onChange,
  error,
}: {
  /** the catalogue permissions the key may carry (what its user holds, when known) */
  offered: string[];
  value: string[] | null;
  onChange: (permissions: string[] | null) => void;
  error?: string;
}) {
  const { t } = useI18n();
  const name = useId();
  // the boxes remember their choice while "all" is selected, so switching back does not lose it
  const [chosen, setChosen] = useState<string[]>(value ?? []);
  const choose = (next: string[]) => {
    setChosen(next);
    onChange(next);
  };
  const toggle = (p: string, on: boolean) => choose(on ? [...chosen.filter((x) => x !== p), p] : chosen.filter((x) => x !== p));
  return (
    <fieldset className="stack key-permissions">
      <legend>{t('keys.permissions')}</legend>
      <label className="check">
        <input type="radio" name={name} checked={value === null} onChange={() => onChange(null)} />
        {t('keys.permissions.allOfUser')}
      </label>
      <label className="check">
        <input type="radio" name={name} checked={value !== null} onChange={() => onChange(chosen)} />
        {t('keys.permissions.chosen')}
      </label>
      <div>
        <button type="button" className="btn btn-secondary" onClick={() => choose(readOnly(offered))}>
          {t('keys.permissions.readOnly')}
        </button>
      </div>
      {value === null ? (
        <p className="field-hint">{t('keys.permissions.allHint')}</p>
      ) : (
        <div className="checks checks-grid" role="group" aria-label={t('keys.permissions.chosen')}>
          {offered.map((p) => (
            <label key={p} className="check">
              <input type="checkbox" name="keyPermission" value={p} checked={value.includes(p)} onChange={(e) => toggle(p, e.target.checked)} />
              <code className="perm">{p}</code>
            </label>
          ))}
        </div>
      )}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

export function KeyPermissions({ permissions }: { permissions: string[] | null | undefined }) {
  const { t } = useI18n();
  if (!permissions) return <span className="muted">{t('keys.permissions.all')}</span>;
  return (
    <ul className="perm-list">
      {permissions.map((p) => (
        <li key={p}>
          <code className="perm">{p}</code>
        </li>
      ))}
    </ul>
  );
}

/** "expires in 3 hours" (the date on hover), "expired", or "Never". */
export function KeyExpiry({ expiresAt, now }: { expiresAt: string | null | undefined; now: number }): ReactNode {
  const { t, formatDate } = useI18n();
  if (!expiresAt) return <span className="muted">{t('common.never')}</span>;
  const left = new Date(expiresAt).getTime() - now;
  if (left <= 0) return <span title={formatDate(expiresAt)}>{t('keys.expired')}</span>;
  const minutes = Math.ceil(left / 60_000);
  const hours = Math.round(left / 3_600_000);
  const text =
    minutes < 60
      ? t('keys.expiresIn.minutes', { count: minutes })
      : hours < 48
        ? t('keys.expiresIn.hours', { count: hours })
        : t('keys.expiresIn.days', { count: Math.round(left / 86_400_000) });
  return (
    <time dateTime={expiresAt} title={formatDate(expiresAt)}>
      {text}
    </time>
  );
}

export const OVERLAPS = [
  { seconds: 0, label: 'keys.rotate.overlap.none' },
  { seconds: 3600, label: 'keys.rotate.overlap.hour' },
  { seconds: 86_400, label: 'keys.rotate.overlap.day' },
  { seconds: 604_800, label: 'keys.rotate.overlap.week' },
] as const;

/**
 * Rotating a secret (an API key, a webhook's signing secret): how long the old one keeps working beside
 * the new one, then confirm. `rotate` answers the refusal to show, or nothing once it is done.
 */
export function RotateDialog({
  title,
  body,
  legend,
  submit: submitLabel,
  onClose,
  rotate,
}: {
  title: string;
  body: MessageKey;
  legend: MessageKey;
  submit: MessageKey;
  onClose: () => void;
  rotate: (overlapSeconds: number) => Promise<CombinedError | undefined>;
}) {
  const { t } = useI18n();
  // none by default: a rotation after a leak must stop the old secret at once
  const [overlap, setOverlap] = useState(0);
  const [error, setError] = useState<CombinedError | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const refused = await rotate(overlap);
    setBusy(false);
    if (refused) setError(refused);
  };
  return (
    <Dialog title={title} open onClose={onClose}>
      <form noValidate className="stack" onSubmit={submit}>
        {error ? <ErrorAlert error={error} /> : null}
        <p>{t(body)}</p>
        <fieldset className="checks">
          <legend>{t(legend)}</legend>
          {OVERLAPS.map((o) => (
            <label key={o.seconds} className="check">
              <input type="radio" name="overlap" value={o.seconds} checked={overlap === o.seconds} onChange={() => setOverlap(o.seconds)} />
              {t(o.label)}
            </label>
          ))}
        </fieldset>
        <div className="dialog-footer">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" variant="primary" disabled={busy}>
            {t(submitLabel)}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
