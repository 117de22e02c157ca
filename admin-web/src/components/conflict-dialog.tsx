// After a save refused with `version_conflict`: what is saved now (theirs) beside what was typed (yours), and
// the choice — keep theirs (the edit is dropped) or apply mine (sent again, based on the version shown here).
import type { CombinedError } from 'urql';
import { useI18n } from '../i18n/index.js';
import { Button, Dialog, ErrorAlert } from './ui.js';

export interface ConflictRow {
  label: string;
  theirs: string;
  mine: string;
}

export function ConflictDialog({
  rows,
  busy,
  error,
  onKeepTheirs,
  onApplyMine,
  onBack,
}: {
  rows: ConflictRow[];
  busy?: boolean;
  error?: CombinedError;
  onKeepTheirs: () => void;
  onApplyMine: () => void;
  /** Escape: back to the form, what was typed still there */
  onBack: () => void;
}) {
  const { t } = useI18n();
  const shown = (v: string) => (v === '' ? <span className="muted">{t('conflict.empty')}</span> : v);
  return (
    <Dialog
      title={t('conflict.title')}
      open
      onClose={onBack}
      footer={
        <>
          <Button onClick={onKeepTheirs}>{t('conflict.keepTheirs')}</Button>
          <Button variant="primary" onClick={onApplyMine} disabled={busy} autoFocus>
            {t('conflict.applyMine')}
          </Button>
        </>
      }
    >
      <p>{t('conflict.body')}</p>
      {error ? <ErrorAlert error={error} /> : null}
      <div className="table-wrap">
        <table className="table conflict-table" data-testid="conflict-table">
          <thead>
            <tr>
              <th scope="col">{t('conflict.field')}</th>
              <th scope="col">{t('conflict.theirs')}</th>
              <th scope="col">{t('conflict.mine')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.label} className={r.theirs === r.mine ? undefined : 'conflict-differs'}>
                <th scope="row">{r.label}</th>
                <td data-label={t('conflict.theirs')} data-testid="conflict-theirs">
                  {shown(r.theirs)}
                </td>
                <td data-label={t('conflict.mine')} data-testid="conflict-mine">
                  {shown(r.mine)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Dialog>
  );
}
