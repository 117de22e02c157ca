// A type-to-search picker (WAI-ARIA combobox with a listbox popup): the server searches, pages load on demand,
// and the current value shows by its name even when it is not among the results.
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useI18n } from '../i18n/index.js';

export interface ComboOption {
  id: string;
  label: string;
  /** shown after the label, e.g. a type or "deactivated" mark */
  detail?: ReactNode;
}

interface Props {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean;
  /** the chosen id ('' for none) and the text that names it */
  value: string;
  valueLabel: string;
  /** an entry meaning "nothing chosen" (e.g. "No lead", "Any"); omitted: a value is required */
  noneLabel?: string;
  /** the search the popup shows; the owner runs the query */
  query: string;
  onQuery(q: string): void;
  options: ComboOption[];
  fetching: boolean;
  hasMore: boolean;
  onMore(): void;
  onChange(id: string, option: ComboOption | null): void;
  autoFocus?: boolean;
  placeholder?: string;
  /** a mark next to the field about the current value (e.g. "deactivated") */
  mark?: ReactNode;
  /** the owner searches only while the list is open, so a closed picker costs no request */
  onOpenChange?(open: boolean): void;
}

type Entry = { kind: 'none' } | { kind: 'option'; option: ComboOption } | { kind: 'more' };

export function Combobox(props: Props) {
  const { t } = useI18n();
  const { id, value, valueLabel, noneLabel, onQuery, options, fetching, hasMore, onMore, onChange } = props;
  const listId = useId();
  const input = useRef<HTMLInputElement>(null);
  const popup = useRef<HTMLDivElement>(null);
  /** Closes when focus leaves the picker: moving between its input and its (focusable) list keeps it open. */
  const closeUnlessWithin = (next: EventTarget | null) => {
    if (next instanceof Node && (input.current?.contains(next) || popup.current?.contains(next))) return;
    close();
  };
  const [open, setOpen] = useState(false);
  const [activeWanted, setActive] = useState(0);
  // what the user typed; while the list is closed the input names the current value
  const [text, setText] = useState(valueLabel);
  const shown = open ? text : valueLabel;

  const entries: Entry[] = [
    ...(noneLabel !== undefined ? [{ kind: 'none' } as const] : []),
    ...options.map((option) => ({ kind: 'option', option }) as const),
    ...(hasMore ? [{ kind: 'more' } as const] : []),
  ];
  const optionId = (i: number) => `${listId}-${i}`;
  // after the results change, the active entry stays within them
  const active = Math.max(0, Math.min(activeWanted, entries.length - 1));

  useEffect(() => {
    props.onOpenChange?.(open);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const show = () => {
    if (open) return;
    setText(valueLabel);
    setOpen(true);
    const current = entries.findIndex((e) => (e.kind === 'option' ? e.option.id === value : e.kind === 'none' && value === ''));
    setActive(Math.max(0, current));
  };
  const close = () => setOpen(false);
  const choose = (entry: Entry | undefined) => {
    if (!entry) return;
    if (entry.kind === 'more') return onMore();
    const option = entry.kind === 'option' ? entry.option : null;
    onChange(option?.id ?? '', option);
    setOpen(false);
    onQuery('');
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        if (!open) show();
        else setActive(Math.min(entries.length - 1, active + 1));
        break;
      case 'ArrowUp':
        e.preventDefault();
        if (!open) show();
        else setActive(Math.max(0, active - 1));
        break;
      case 'Home':
      case 'End':
        if (!open) return;
        e.preventDefault();
        setActive(e.key === 'Home' ? 0 : entries.length - 1);
        break;
      case 'Enter':
        // inside a form, Enter on an open list picks; on a closed one it submits as usual
        if (!open) return;
        e.preventDefault();
        choose(entries[active]);
        break;
      case 'Escape':
        // closes the list only: the dialog around it stays open
        if (!open) return;
        e.preventDefault();
        e.stopPropagation();
        close();
        break;
      case 'Tab':
        if (open) close();
        break;
    }
  };

  useEffect(() => {
    if (open) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active, open]);

  return (
    <div className="combobox">
      <div className="combobox-field">
        <input
          ref={input}
          id={id}
          type="text"
          role="combobox"
          autoComplete="off"
          spellCheck={false}
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open && entries.length ? optionId(active) : undefined}
          aria-describedby={props['aria-describedby']}
          aria-invalid={props['aria-invalid']}
          autoFocus={props.autoFocus}
          placeholder={props.placeholder ?? t('picker.placeholder')}
          value={shown}
          onFocus={(e) => e.target.select()}
          onClick={show}
          onChange={(e) => {
            setText(e.target.value);
            onQuery(e.target.value.trim());
            setActive(0);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
          onBlur={(e) => closeUnlessWithin(e.relatedTarget)}
        />
        {props.mark ? <span className="combobox-mark">{props.mark}</span> : null}
      </div>
      {/* In the tab order while open, so a list longer than its popup can be scrolled from the keyboard too
          (axe: scrollable-region-focusable); the arrow keys, Enter and Escape work there as in the input. A press
          on it (its scrollbar) keeps focus in the input, as a press on an option does. */}
      <div
        ref={popup}
        className="combobox-popup"
        hidden={!open}
        tabIndex={open ? 0 : -1}
        onMouseDown={(e) => e.preventDefault()}
        onKeyDown={onKeyDown}
        onBlur={(e) => closeUnlessWithin(e.relatedTarget)}
      >
        <ul id={listId} role="listbox" aria-label={t('picker.results')} className="combobox-list">
          {open
            ? entries.map((entry, i) => {
                const selected = entry.kind === 'option' ? entry.option.id === value : entry.kind === 'none' && value === '';
                return (
                  <li
                    key={entry.kind === 'option' ? entry.option.id : entry.kind}
                    id={optionId(i)}
                    role="option"
                    aria-selected={selected}
                    className={`combobox-option${i === active ? ' active' : ''}${entry.kind === 'more' ? ' combobox-more' : ''}`}
                    // keep focus in the input: a click picks without blurring first
                    onMouseDown={(e) => e.preventDefault()}
                    onClick={() => choose(entry)}
                    onMouseMove={() => i !== active && setActive(i)}
                  >
                    {entry.kind === 'none' ? (
                      <span className="muted">{noneLabel}</span>
                    ) : entry.kind === 'more' ? (
                      t('picker.more')
                    ) : (
                      <>
                        <span>{entry.option.label}</span>
                        {entry.option.detail ? <span className="combobox-detail">{entry.option.detail}</span> : null}
                      </>
                    )}
                  </li>
                );
              })
            : null}
        </ul>
        {open && (fetching || options.length === 0) ? (
          <p className="combobox-status" role="status">
            {fetching ? t('common.loading') : t('picker.noMatch')}
          </p>
        ) : null}
      </div>
    </div>
  );
}
