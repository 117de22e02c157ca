// The design system's building blocks: buttons, fields, alerts, dialogs, empty/loading states.
import { useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type ReactElement, type ReactNode } from 'react';
import type { CombinedError } from 'urql';
import { useI18n } from '../i18n/index.js';
import { errorCode, fieldErrors } from '../lib/errors.js';
import { Link } from '../lib/router.js';
import { fieldErrorText, fieldLabel, refusalText } from '../lib/refusals.js';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

export function Button({ variant = 'secondary', className, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant }) {
  return <button type="button" className={`btn btn-${variant}${className ? ` ${className}` : ''}`} {...rest} />;
}

/** A labelled control: the label's `for` points at the control, hints and errors are described-by. */
export function Field({
  label,
  hint,
  error,
  optional,
  children,
}: {
  label: string;
  hint?: string;
  error?: string;
  optional?: boolean;
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ReactElement;
}) {
  const { t } = useI18n();
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>
        {label}
        {optional ? <span className="field-optional"> ({t('common.optional')})</span> : null}
      </label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined })}
      {hint ? (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The search box of a list's filter form: submitting the form searches. */
export function SearchField({ label, value, onChange, placeholder }: { label: string; value: string; onChange: (q: string) => void; placeholder?: string }) {
  const { t } = useI18n();
  return (
    <Field label={label}>
      {(p) => (
        <div className="input-with-button">
          <input {...p} type="search" name="q" placeholder={placeholder} value={value} onChange={(e) => onChange(e.target.value)} />
          <Button type="submit">{t('common.search')}</Button>
        </div>
      )}
    </Field>
  );
}

export function Alert({ kind = 'info', children, action }: { kind?: 'info' | 'success' | 'error' | 'warning'; children: ReactNode; action?: ReactNode }) {
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' || kind === 'warning' ? 'alert' : 'status'}>
      <div className="alert-body">{children}</div>
      {action ? <div className="alert-action">{action}</div> : null}
    </div>
  );
}

/** A GraphQL error in words: each code its sentence in the operator's language, validation errors listed by field. */
export function ErrorAlert({ error, onRetry }: { error: CombinedError; onRetry?: () => void }) {
  const { t } = useI18n();
  const code = errorCode(error);
  const fields = fieldErrors(error);
  return (
    <Alert
      kind="error"
      action={onRetry ? <Button onClick={onRetry}>{code === 'VERSION_CONFLICT' ? t('common.reload') : t('common.retry')}</Button> : undefined}
    >
      <p>{refusalText(t, error)}</p>
      {fields.length ? (
        <ul className="alert-list">
          {fields.map((f, i) => (
            <li key={i}>
              {fieldLabel(t, f.path)}
              {fieldErrorText(t, f)}
            </li>
          ))}
        </ul>
      ) : null}
    </Alert>
  );
}

export function Loading() {
  const { t } = useI18n();
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {t('common.loading')}
    </div>
  );
}

export function EmptyState({ children, action }: { children: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <div className="empty-icon" aria-hidden="true">
        ◌
      </div>
      <p>{children}</p>
      {action}
    </div>
  );
}

/**
 * A list page's states before its rows: the error with Retry while nothing was loaded, "Loading…" while the
 * first answer is on its way, the empty state when `empty` names one for the loaded data; else the rows.
 */
export function ListStates<D>({
  data,
  error,
  fetching,
  refetch,
  empty,
  children,
}: {
  data: D | undefined;
  error: CombinedError | undefined;
  fetching: boolean;
  refetch: (opts: { requestPolicy: 'network-only' }) => void;
  /** the empty state's text, or null when the loaded data has rows to show */
  empty: (data: D) => ReactNode;
  children: (data: D) => ReactNode;
}) {
  if (error && !data) return <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  if (!data) return fetching ? <Loading /> : null;
  const emptyText = empty(data);
  if (emptyText !== null) return <EmptyState>{emptyText}</EmptyState>;
  return children(data);
}

export function Badge({ tone = 'neutral', children }: { tone?: string; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/** A page's place in the app: the pages above it, then itself (the current page, not a link). */
export interface Crumb {
  to: string;
  label: string;
}

export function PageHeader({ title, actions, children, trail }: { title: string; actions?: ReactNode; children?: ReactNode; trail?: Crumb[] }) {
  const { t } = useI18n();
  return (
    <header className="page-header">
      <div>
        {trail?.length ? (
          <nav aria-label={t('nav.breadcrumbs')} className="breadcrumbs">
            <ol>
              {trail.map((c) => (
                <li key={c.to}>
                  <Link to={c.to}>{c.label}</Link>
                </li>
              ))}
              <li aria-current="page">{title}</li>
            </ol>
          </nav>
        ) : null}
        <h1>{title}</h1>
        {children}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

/**
 * A modal built on <dialog>: focus moves in, Escape closes, focus returns to the opener.
 * `dismissible={false}`: only an explicit button closes it (a key shown once must not vanish on Escape).
 */
export function Dialog({
  title,
  open,
  onClose,
  children,
  footer,
  dismissible = true,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  dismissible?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      d.showModal();
    }
    if (!open && d.open) {
      d.close();
      opener.current?.focus();
    }
  }, [open]);
  // a dialog that is unmounted while open (its owner stopped rendering it) still hands focus back
  useEffect(() => {
    const d = ref.current;
    return () => {
      if (d?.hasAttribute('open')) opener.current?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onClose={() => {
        // a browser may close a modal on its own (repeated Escape): one that must stay, comes back
        if (!dismissible && open) ref.current?.showModal();
        else onClose();
      }}
      onCancel={(e) => {
        e.preventDefault();
        if (dismissible) onClose();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !dismissible) e.preventDefault();
      }}
    >
      {open ? (
        <>
          <h2 id={titleId}>{title}</h2>
          <div className="dialog-body">{children}</div>
          {footer ? <div className="dialog-footer">{footer}</div> : null}
        </>
      ) : null}
    </dialog>
  );
}

export function ConfirmDialog({
  title,
  body,
  confirmLabel,
  open,
  busy,
  blocked,
  error,
  onConfirm,
  onClose,
}: {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  open: boolean;
  busy?: boolean;
  /** the body says why this cannot be done now: the confirm button is not offered as if it could */
  blocked?: boolean;
  error?: CombinedError;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  return (
    <Dialog
      title={title}
      open={open}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} autoFocus>
            {t('common.cancel')}
          </Button>
          <Button variant="danger" onClick={onConfirm} disabled={busy || blocked}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      <p>{body}</p>
      {error ? <ErrorAlert error={error} /> : null}
    </Dialog>
  );
}

export function CopyButton({ text }: { text: string }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  return (
    <Button
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // without clipboard permission, select the text so the user can copy it by hand
          const el = document.querySelector<HTMLInputElement>('[data-copy-source]');
          el?.select();
        }
        setCopied(true);
      }}
    >
      {copied ? t('common.copied') : t('common.copy')}
    </Button>
  );
}

/** Previous/next over cursor pages: the caller keeps the stack of cursors it came through. */
export function Pager({ page, hasNext, onPrevious, onNext }: { page: number; hasNext: boolean; onPrevious: () => void; onNext: () => void }) {
  const { t } = useI18n();
  if (page === 1 && !hasNext) return null;
  return (
    <nav className="pager" aria-label={t('common.page', { page })}>
      <Button onClick={onPrevious} disabled={page <= 1}>
        ← {t('common.previous')}
      </Button>
      <span className="pager-page">{t('common.page', { page })}</span>
      <Button onClick={onNext} disabled={!hasNext}>
        {t('common.next')} →
      </Button>
    </nav>
  );
}

/**
 * A refetch failed while the page shows what it loaded before (see useKeptQuery): a small note, not a page of
 * error — dialogs and what was typed in them stay, and the page updates by itself once the server answers.
 */
export function RetryingNotice({ error }: { error: CombinedError | null }) {
  const { t } = useI18n();
  if (!error) return null;
  return (
    <p className="retrying-notice" role="status" data-testid="retrying-notice">
      <span className="spinner" aria-hidden="true" />
      {t('common.retrying')}
    </p>
  );
}
