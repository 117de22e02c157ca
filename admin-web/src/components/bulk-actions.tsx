// Bulk actions (issue 36): the same command on many items, each its own request (so each tension gets its own
// command and event, each user or key its own audit entry), at most BULK_CONCURRENCY at a time, with progress,
// and every failure listed by row with its reason in the operator's language. Nothing is retried silently.
import { useRef, useState, type ReactNode } from 'react';
import type { CombinedError } from 'urql';
import { useI18n } from '../i18n/index.js';
import { refusalText } from '../lib/refusals.js';
import { Link } from '../lib/router.js';
import { Alert, Button } from './ui.js';

export const BULK_CONCURRENCY = 4;

export interface BulkItem {
  id: string;
  name: string;
  /** where the item's page is, for the failure list */
  href?: string;
}

export interface BulkFailure {
  item: BulkItem;
  reason: string;
}

export interface BulkRun {
  label: string;
  total: number;
  done: number;
  failures: BulkFailure[];
  running: boolean;
}

/** Runs `act` on every item, BULK_CONCURRENCY at a time; resolves to the run as it ended. */
export function useBulkRunner() {
  const { t } = useI18n();
  const [run, setRun] = useState<BulkRun | null>(null);
  const cancelled = useRef(false);
  async function start(label: string, items: BulkItem[], act: (item: BulkItem) => Promise<CombinedError | undefined>): Promise<void> {
    cancelled.current = false;
    const state: BulkRun = { label, total: items.length, done: 0, failures: [], running: true };
    setRun({ ...state });
    let next = 0;
    const worker = async () => {
      while (next < items.length && !cancelled.current) {
        const item = items[next++];
        let reason: string | null = null;
        try {
          const error = await act(item);
          if (error) reason = refusalText(t, error);
        } catch {
          reason = t('error.unexpected');
        }
        state.done += 1;
        if (reason !== null) state.failures.push({ item, reason });
        setRun({ ...state, failures: [...state.failures] });
      }
    };
    await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, items.length) }, worker));
    state.running = false;
    setRun({ ...state, failures: [...state.failures] });
  }
  return {
    run,
    start,
    stop: () => {
      cancelled.current = true;
    },
    clear: () => setRun(null),
  };
}

/** Progress while a run goes on; afterwards what succeeded and each failure with its reason. */
export function BulkProgress({ run, onStop, onClose }: { run: BulkRun; onStop: () => void; onClose: () => void }) {
  const { t } = useI18n();
  const ok = run.done - run.failures.length;
  return (
    <div className="bulk-progress card" data-testid="bulk-progress">
      <div className="bulk-progress-head">
        <strong>{run.label}</strong>
        <progress max={run.total} value={run.done} aria-label={t('bulk.progressLabel')} />
        <span role="status">{t('bulk.progress', { done: run.done, total: run.total })}</span>
        {run.running ? (
          <Button variant="ghost" onClick={onStop}>
            {t('bulk.stop')}
          </Button>
        ) : (
          <Button variant="ghost" onClick={onClose}>
            {t('common.close')}
          </Button>
        )}
      </div>
      {!run.running ? (
        <Alert kind={run.failures.length ? 'warning' : 'success'}>
          {t('bulk.summary', { ok, failed: run.failures.length, skipped: run.total - run.done })}
        </Alert>
      ) : null}
      {run.failures.length ? (
        <table className="table bulk-failures">
          <caption>{t('bulk.failures', { count: run.failures.length })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('common.name')}</th>
              <th scope="col">{t('bulk.reason')}</th>
            </tr>
          </thead>
          <tbody>
            {run.failures.map((f) => (
              <tr key={f.item.id}>
                <td>{f.item.href ? <Link to={f.item.href}>{f.item.name}</Link> : f.item.name}</td>
                <td data-label={t('bulk.reason')}>{f.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

/** The bar above a list while rows are selected: how many, and the actions. */
export function BulkBar({ count, children, onClear }: { count: number; children: ReactNode; onClear: () => void }) {
  const { t } = useI18n();
  return (
    <div className="bulk-bar card" role="region" aria-label={t('bulk.region')}>
      <span className="bulk-count">{t('bulk.selected', { count })}</span>
      <div className="bulk-actions">{children}</div>
      <Button variant="ghost" onClick={onClear}>
        {t('bulk.clear')}
      </Button>
    </div>
  );
}
