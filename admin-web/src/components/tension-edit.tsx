// The edit commands of a tension (rename, rescore, revise, lead, reassign), each a small dialog form.
import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, type CombinedError } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { errorCode } from '../lib/errors.js';
import { fieldMessage } from '../lib/refusals.js';
import type { Tension } from '../pages/tension-detail.js';
import { ActorField, UserField } from './pickers.js';
import { Button, Dialog, ErrorAlert, Field } from './ui.js';
import { ConflictDialog, type ConflictRow } from './conflict-dialog.js';
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
  /** the tension as the dialog opened on it: its version is the one every Save sends (a live reload meanwhile changes nothing here) */
  tension: Tension;
  onClose: () => void;
  onDone: (r: Applied) => void;
  /** after a version conflict: the tension as saved now (the page shows it too), null when it cannot be read */
  fetchLatest: () => Promise<Tension | null>;
  /** sends the command so the page knows its answer's event as its own */
  track: <T extends Applied>(send: () => Promise<T>) => Promise<T>;
}

export function EditCommand({ kind, tension: opened, onClose, onDone, fetchLatest, track }: Props) {
  const { t } = useI18n();
  // what the dialog opened on: the page's tension may move on (a live reload) while the person types
  const [base] = useState(opened);
  const [name, setName] = useState(base.name);
  const [score, setScore] = useState(String(base.score));
  const [currentContext, setCurrent] = useState(base.currentContext ?? '');
  const [potentialFuture, setFuture] = useState(base.potentialFuture ?? '');
  const [leadUserId, setLead] = useState(base.leadUserId ?? '');
  const [leadName, setLeadName] = useState(base.lead?.name ?? '');
  const [actorId, setActor] = useState(base.actorId);
  const [actorName, setActorName] = useState(base.actor.name);
  const [error, setError] = useState<CombinedError | undefined>();
  const [busy, setBusy] = useState(false);
  // a save refused with version_conflict: the tension as saved now, shown beside what was typed
  const [conflict, setConflict] = useState<{ latest: Tension } | null>(null);
  const [, rename] = useMutation(RenameDocument);
  const [, rescore] = useMutation(RescoreDocument);
  const [, revise] = useMutation(ReviseDocument);
  const [, lead] = useMutation(LeadDocument);
  const [, reassign] = useMutation(ReassignDocument);
  const id = base.id;

  /** Sends the typed values as a change of `expectedVersion`: the version opened on, or the one a conflict showed. */
  const run = async (expectedVersion: number): Promise<Applied> => {
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
        // only what the person changed, so the event records exactly that (at least one key is sent)
        const input: { currentContext?: string | null; potentialFuture?: string | null; expectedVersion: number } = { expectedVersion };
        if (currentContext !== (base.currentContext ?? '')) input.currentContext = currentContext || null;
        if (potentialFuture !== (base.potentialFuture ?? '')) input.potentialFuture = potentialFuture || null;
        if (!('currentContext' in input) && !('potentialFuture' in input)) input.currentContext = base.currentContext ?? null;
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

  /** One save: done, a conflict to show (theirs beside mine), or an error in the form. */
  const save = async (expectedVersion: number) => {
    setBusy(true);
    const result = await track(() => run(expectedVersion));
    if (errorCode(result.error) === 'VERSION_CONFLICT') {
      const latest = await fetchLatest();
      setBusy(false);
      if (latest) {
        setConflict({ latest });
        return;
      }
    }
    setBusy(false);
    setConflict(null);
    if (result.error) setError(result.error);
    else onDone(result);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    void save(base.version);
  };

  const rows = (latest: Tension): ConflictRow[] => {
    switch (kind) {
      case 'rename':
        return [{ label: t('tension.field.name'), theirs: latest.name, mine: name }];
      case 'rescore':
        return [{ label: t('tension.field.score'), theirs: String(latest.score), mine: score }];
      case 'revise':
        return [
          { label: t('tension.field.currentContext'), theirs: latest.currentContext ?? '', mine: currentContext },
          { label: t('tension.field.potentialFuture'), theirs: latest.potentialFuture ?? '', mine: potentialFuture },
        ];
      case 'lead':
        return [
          { label: t('tension.field.lead'), theirs: latest.lead?.name ?? t('tension.noLead'), mine: leadUserId ? leadName || leadUserId : t('tension.noLead') },
        ];
      case 'reassign':
        return [{ label: t('tension.field.actor'), theirs: latest.actor.name, mine: actorName || actorId }];
    }
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
          {(p) => (
            <input {...p} name="score" type="number" min={1} max={10} step={1} required value={score} onChange={(e) => setScore(e.target.value)} autoFocus />
          )}
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
        <UserField
          label={t('tension.field.lead')}
          status="active"
          noneLabel={t('tension.noLead')}
          error={fieldMessage(t, error, 'leadUserId')}
          value={leadUserId}
          valueLabel={leadUserId === (base.leadUserId ?? '') ? base.lead?.name : undefined}
          onChange={(v, n) => {
            setLead(v);
            setLeadName(n ?? '');
          }}
          autoFocus
        />
      );
      break;
    case 'reassign':
      fields = (
        <ActorField
          label={t('tension.field.actor')}
          error={fieldMessage(t, error, 'actorId')}
          value={actorId}
          valueLabel={actorId === base.actorId ? base.actor.name : undefined}
          onChange={(v, n) => {
            setActor(v);
            setActorName(n ?? '');
          }}
          autoFocus
        />
      );
      break;
  }

  return (
    <>
      <Dialog title={t(`tension.cmd.${kind}`)} open onClose={onClose}>
        <form noValidate onSubmit={submit} className="stack">
          {error ? <ErrorAlert error={error} /> : null}
          {fields}
          <div className="dialog-footer">
            <Button onClick={onClose}>{t('common.cancel')}</Button>
            <Button type="submit" variant="primary" disabled={busy}>
              {t('common.save')}
            </Button>
          </div>
        </form>
      </Dialog>
      {conflict ? (
        <ConflictDialog
          rows={rows(conflict.latest)}
          busy={busy}
          onBack={() => setConflict(null)}
          // theirs stays: the edit is dropped, the page already shows the tension as saved now
          onKeepTheirs={onClose}
          // mine, as a change of the version just shown (another conflict shows the newer one)
          onApplyMine={() => void save(conflict.latest.version)}
        />
      ) : null}
    </>
  );
}
