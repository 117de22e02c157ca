// Actor and user pickers: a labelled field that searches the server as the operator types (after a pause, a
// newer search cancelling an older one; 20 a page, more on demand), fetches nothing until opened, and names the current value even when no result page holds it.
import { asActorType } from '../lib/enums';
import { useEffect, useRef, useState } from 'react';
import { useClient, useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { useSession } from '../lib/session.js';
import { Combobox, type ComboOption } from './combobox.js';
import { Badge, Field } from './ui.js';

const PickActorsDocument = graphql(`
  query PickActors($q: String, $type: ActorType, $cursor: String) {
    actors(q: $q, type: $type, limit: 20, cursor: $cursor) {
      data { id name type }
      nextCursor
    }
  }
`);
export const PickActorDocument = graphql(`
  query PickActor($id: ID!) {
    actor(id: $id) { id name type }
  }
`);
const PickUsersDocument = graphql(`
  query PickUsers($q: String, $status: UserStatus, $cursor: String) {
    users(q: $q, status: $status, limit: 20, cursor: $cursor) {
      data { id name email type status }
      nextCursor
    }
  }
`);
export const PickUserDocument = graphql(`
  query PickUser($id: ID!) {
    user(id: $id) { id name email type status }
  }
`);

/** how long typing must pause before a picker searches (the tensions list waits as long) */
const SEARCH_PAUSE_MS = 250;

interface Page<T> {
  data: T[];
  nextCursor?: string | null;
}

/** urql's answer to one query: unsubscribing tears the operation down, which aborts its request. */
interface QuerySource<R> {
  subscribe(onResult: (result: R) => void): { unsubscribe(): void };
}

/**
 * The first answer of `source`, or undefined once `signal` aborts: a search the operator has typed past is
 * cancelled on the wire, so the server stops working on it (at a million tensions a stale search is work).
 */
function firstAnswer<R>(source: QuerySource<R>, signal: AbortSignal): Promise<R | undefined> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: R | undefined) => {
      if (done) return;
      done = true;
      resolve(r);
      queueMicrotask(() => sub.unsubscribe());
    };
    const sub = source.subscribe(finish);
    if (signal.aborted) finish(undefined);
    else signal.addEventListener('abort', () => finish(undefined), { once: true });
  });
}

/**
 * Result pages of a search, accumulated; searching starts when the picker opens and follows the typed text
 * after a pause; a newer search cancels the request of an older one still under way.
 */
function useSearch<T>(load: (q: string, cursor: string | null, signal: AbortSignal) => Promise<Page<T> | undefined>, open: boolean, q: string) {
  // results belong to the search that found them: a new search shows none (Enter cannot pick a stale one)
  const [state, setState] = useState<{ q: string | null; items: T[]; next: string | null; fetching: boolean }>({
    q: null,
    items: [],
    next: null,
    fetching: false,
  });
  const seq = useRef(0);
  // the search under way (its first page and any "more"), aborted when the text changes or the picker closes
  const running = useRef<AbortController | null>(null);
  useEffect(() => {
    if (!open) return;
    const mine = ++seq.current;
    const abort = new AbortController();
    running.current = abort;
    // typing: wait for a pause, so a word costs one request, not one per letter
    const timer = setTimeout(
      async () => {
        const page = await load(q, null, abort.signal);
        if (seq.current === mine && !abort.signal.aborted) setState({ q, items: page?.data ?? [], next: page?.nextCursor ?? null, fetching: false });
      },
      q ? SEARCH_PAUSE_MS : 0,
    );
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, q]);
  const current = state.q === q;
  const more = async () => {
    if (!state.next || state.fetching) return;
    const mine = seq.current;
    setState((s) => ({ ...s, fetching: true }));
    const signal = running.current?.signal ?? new AbortController().signal;
    const page = await load(q, state.next, signal);
    if (seq.current === mine && !signal.aborted)
      setState((s) => ({ q: s.q, items: [...s.items, ...(page?.data ?? [])], next: page?.nextCursor ?? null, fetching: false }));
  };
  return { items: current ? state.items : [], next: current ? state.next : null, fetching: !current || state.fetching, more };
}

interface FieldProps {
  label: string;
  value: string;
  /** the current value's name when the caller knows it (saves a lookup) */
  valueLabel?: string | null;
  /** `name`: the chosen entry's name, when the picker knows it */
  onChange(id: string, name?: string): void;
  error?: string;
  optional?: boolean;
  /** an entry for "nothing" (e.g. "Any", "No lead"); omitted: a value is required */
  noneLabel?: string;
  autoFocus?: boolean;
}

export function ActorField({ type, ...props }: FieldProps & { type?: string }) {
  const { t } = useI18n();
  const { can } = useSession();
  const client = useClient();
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState('');
  // the option just chosen names itself: no lookup for it
  const [chosen, setChosen] = useState<ComboOption | null>(null);
  const known = props.valueLabel ?? (chosen?.id === props.value ? chosen.label : null);
  const [current] = useQuery({ query: PickActorDocument, variables: { id: props.value }, pause: !props.value || known !== null || !can('actors:read') });
  const search = useSearch(
    async (text, cursor, signal) =>
      (await firstAnswer(client.query(PickActorsDocument, { q: text || null, type: asActorType(type), cursor }, { requestPolicy: 'network-only' }), signal))
        ?.data?.actors,
    open,
    q,
  );
  const options: ComboOption[] = search.items.map((a) => ({ id: a.id, label: a.name, detail: <Badge>{t(`actors.type.${a.type}` as MessageKey)}</Badge> }));
  const valueLabel = !props.value ? (props.noneLabel ?? '') : (known ?? current.data?.actor?.name ?? '');
  return (
    <Field label={props.label} error={props.error} optional={props.optional}>
      {(p) =>
        can('actors:read') ? (
          <Combobox
            {...p}
            value={props.value}
            valueLabel={valueLabel}
            noneLabel={props.noneLabel}
            query={q}
            onQuery={setQ}
            options={options}
            fetching={search.fetching}
            hasMore={Boolean(search.next)}
            onMore={() => void search.more()}
            onChange={(id, option) => {
              setChosen(option);
              props.onChange(id, option?.label);
            }}
            onOpenChange={setOpen}
            autoFocus={props.autoFocus}
          />
        ) : (
          <input
            {...p}
            name="actorId"
            value={props.value}
            onChange={(e) => props.onChange(e.target.value.trim())}
            autoFocus={props.autoFocus}
            placeholder={t('picker.idPlaceholder')}
          />
        )
      }
    </Field>
  );
}

/** `status`: which users are offered ('active' where a deactivated user would be refused; all to filter). */
export function UserField({ status, ...props }: FieldProps & { status?: 'active' }) {
  const { t } = useI18n();
  const { can } = useSession();
  const client = useClient();
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState('');
  // looked up when set (the mark needs the status, which a tension's lead does not carry), unless just chosen here
  const [chosen, setChosen] = useState<{ id: string; name: string; status: string } | null>(null);
  const picked = chosen?.id === props.value ? chosen : null;
  const [current] = useQuery({ query: PickUserDocument, variables: { id: props.value }, pause: !props.value || picked !== null || !can('users:read') });
  const search = useSearch(
    async (text, cursor, signal) =>
      (await firstAnswer(client.query(PickUsersDocument, { q: text || null, status: status ?? null, cursor }, { requestPolicy: 'network-only' }), signal))?.data
        ?.users,
    open,
    q,
  );
  const deactivated = <Badge tone="grey">{t('users.status.deactivated')}</Badge>;
  const options: ComboOption[] = search.items.map((u) => ({
    id: u.id,
    label: u.name,
    detail: (
      <>
        <span className="muted small">{u.email}</span>
        {u.status === 'deactivated' ? deactivated : null}
      </>
    ),
  }));
  const user = picked ?? current.data?.user;
  const valueLabel = !props.value ? (props.noneLabel ?? '') : (user?.name ?? props.valueLabel ?? '');
  return (
    <Field label={props.label} error={props.error} optional={props.optional}>
      {(p) =>
        can('users:read') ? (
          <Combobox
            {...p}
            value={props.value}
            valueLabel={valueLabel}
            noneLabel={props.noneLabel}
            query={q}
            onQuery={setQ}
            options={options}
            fetching={search.fetching}
            hasMore={Boolean(search.next)}
            onMore={() => void search.more()}
            onChange={(id) => {
              const u = search.items.find((x) => x.id === id);
              setChosen(u ? { id: u.id, name: u.name, status: u.status } : null);
              props.onChange(id, u?.name);
            }}
            onOpenChange={setOpen}
            autoFocus={props.autoFocus}
            mark={props.value && user?.status === 'deactivated' ? deactivated : null}
          />
        ) : (
          <input
            {...p}
            name="userId"
            value={props.value}
            onChange={(e) => props.onChange(e.target.value.trim())}
            autoFocus={props.autoFocus}
            placeholder={t('picker.idPlaceholder')}
          />
        )
      }
    </Field>
  );
}
