// The edit commands of a tension (rename, rescore, revise, lead, reassign), each a small dialog form.
import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, type CombinedError } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { errorCode } from '../lib/errors.js';
import { fieldMessage } from '../lib/refusals.js';
import type { Tension } from '../pages/tension-detail.js';
import { ActorField, UserField } from './pickers.js';
import { Alert, Button, Dialog, ErrorAlert, Field } from './ui.js';
import type { Entry } from './history-timeline.js';
import { APPLIED_BY_CALLER } from '../lib/client.js';

export type EditKind = 'rename' | 'rescore' | 'revise' | 'lead' | 'reassign';

const RenameDocument = graphql(`
  mutation RenameTension($id: ID!, $input: RenameTensionInput!) {
    renameTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }
  }
`);
const RescoreDocument = graphql(`
  mutation RescoreTension($id: ID!, $input: RescoreTensionInput!) {
    rescoreTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }
  }
`);
const ReviseDocument = graphql(`
  mutation ReviseTensionContext($id: ID!, $input: ReviseTensionContextInput!) {
    reviseTensionContext(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }
  }
`);
const LeadDocument = graphql(`
  mutation SetTensionLead($id: ID!, $input: SetTensionLeadInput!) {
    setTensionLead(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }
  }
`);
const ReassignDocument = graphql(`
  mutation ReassignTension($id: ID!, $input: ReassignTensionInput!) {
    reassignTension(id: $id, input: $input) { tension { ...TensionFields } event { ...HistoryEntryFields } }
  }
`);

/** A command's answer: the tension after it and the history entry it appended (null for a no-op). */
export interface Applied {
  error?: CombinedError;
  tension?: Tension | null;
  event?: Entry | null;
}

interface Props {
  kind: EditKind;
  tension: Tension;
  onClose: () => void;
  onDone: (r: Applied) => void;
  /** after a version conflict: fetch the latest tension; the dialog stays open with what was typed */
  onReload: () => void;
  /** sends the command so the page knows its answer's event as its own */
  track: <T extends Applied>(send: () => Promise<T>) => Promise<T>;
}

export function EditCommand({ kind, tension, onClose, onDone, onReload, track }: Props) {
  const { t } = useI18n();
  const [name, setName] = useState(tension.name);
  const [score, setScore] = useState(String(tension.score));
  const [currentContext, setCurrent] = useState(tension.currentContext ?? '');
  const [potentialFuture, setFuture] = useState(tension.potentialFuture ?? '');
  const [leadUserId, setLead] = useState(tension.leadUserId ?? '');
  const [actorId, setActor] = useState(tension.actorId);
  const [error, setError] = useState<CombinedError | undefined>();
  const [busy, setBusy] = useState(false);
  const [, rename] = useMutation(RenameDocument);
  const [, rescore] = useMutation(RescoreDocument);
  const [, revise] = useMutation(ReviseDocument);
  const [, lead] = useMutation(LeadDocument);
  const [, reassign] = useMutation(ReassignDocument);
  const expectedVersion = tension.version;
  const id = tension.id;

  const run = async (): Promise<Applied> => {
    switch (kind) {
      case 'rename': {
        const r = await rename({ id, input: { name, expectedVersion } }, APPLIED_BY_CALLER);
        return { error: r.error, ...r.data?.renameTension };
      }
      case 'rescore': {
        const r = await rescore({ id, input: { score: Number(score), expectedVersion } }, APPLIED_BY_CALLER);
        return { error: r.error, ...r.data?.rescoreTension };
      }
      case 'revise': {
        // only what changed, so the event records exactly that (at least one key is sent)
        const input: { currentContext?: string | null; potentialFuture?: string | null; expectedVersion: number } = { expectedVersion };
        if (currentContext !== (tension.currentContext ?? '')) input.currentContext = currentContext || null;
        if (potentialFuture !== (tension.potentialFuture ?? '')) input.potentialFuture = potentialFuture || null;
        if (!('currentContext' in input) && !('potentialFuture' in input)) input.currentContext = tension.currentContext ?? null;
        const r = await revise({ id, input }, APPLIED_BY_CALLER);
        return { error: r.error, ...r.data?.reviseTensionContext };
      }
      case 'lead': {
        const r = await lead({ id, input: { leadUserId: leadUserId || null, expectedVersion } }, APPLIED_BY_CALLER);
        return { error: r.error, ...r.data?.setTensionLead };
      }
      case 'reassign': {
        // actor lists count tensions: those go stale
        const r = await reassign({ id, input: { actorId, expectedVersion } }, { ...APPLIED_BY_CALLER, additionalTypenames: ['Actor'] });
        return { error: r.error, ...r.data?.reassignTension };
      }
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const result = await track(run);
    setBusy(false);
    if (result.error) setError(result.error);
    else onDone(result);
  };

  let fields: ReactNode;
  switch (kind) {
    case 'rename':
      fields = (
        <Field label={t('tension.field.name')} error={fieldMessage(t, error, 'name')}>
          {(p) => <input {...p} name="name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
        </Field>
      );
      break;
    case 'rescore':
      fields = (
        <Field label={t('tension.field.score')} error={fieldMessage(t, error, 'score')}>
          {(p) => <input {...p} name="score" type="number" min={1} max={10} step={1} required value={score} onChange={(e) => setScore(e.target.value)} autoFocus />}
        </Field>
      );
      break;
    case 'revise':
      fields = (
        <>
          <Field label={t('tension.field.currentContext')} error={fieldMessage(t, error, 'currentContext')}>
            {(p) => <textarea {...p} name="currentContext" rows={5} value={currentContext} onChange={(e) => setCurrent(e.target.value)} autoFocus />}
          </Field>
          <Field label={t('tension.field.potentialFuture')} error={fieldMessage(t, error, 'potentialFuture')}>
            {(p) => <textarea {...p} name="potentialFuture" rows={5} value={potentialFuture} onChange={(e) => setFuture(e.target.value)} />}
          </Field>
        </>
      );
      break;
    case 'lead':
      fields = (
        <UserField label={t('tension.field.lead')} status="active" noneLabel={t('tension.noLead')} error={fieldMessage(t, error, 'leadUserId')} value={leadUserId} valueLabel={tension.lead?.name} onChange={setLead} autoFocus />
      );
      break;
    case 'reassign':
      fields = (
        <ActorField label={t('tension.field.actor')} error={fieldMessage(t, error, 'actorId')} value={actorId} valueLabel={actorId === tension.actorId ? tension.actor.name : undefined} onChange={setActor} autoFocus />
      );
      break;
  }

  return (
    <Dialog title={t(`tension.cmd.${kind}`)} open onClose={onClose}>
      <form onSubmit={submit} className="stack">
        {error && errorCode(error) === 'VERSION_CONFLICT' ? (
          <Alert kind="warning" action={<Button variant="primary" onClick={() => { setError(undefined); onReload(); }}>{t('common.reload')}</Button>}>
            {t('error.versionConflict')}
          </Alert>
        ) : error ? (
          <ErrorAlert error={error} />
        ) : null}
        {fields}
        <div className="dialog-footer">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" variant="primary" disabled={busy}>{t('common.save')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
