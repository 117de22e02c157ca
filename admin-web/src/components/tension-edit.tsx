// The edit commands of a tension (rename, rescore, revise, lead, reassign), each a small dialog form.
import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, type CombinedError } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { errorCode } from '../lib/errors.js';
import { errorFor } from '../lib/form-errors.js';
import { useSession } from '../lib/session.js';
import type { Tension } from '../pages/tension-detail.js';
import { useActorOptions, useUserOptions } from './options.js';
import { Button, Dialog, ErrorAlert, Field } from './ui.js';

export type EditKind = 'rename' | 'rescore' | 'revise' | 'lead' | 'reassign';

const RenameDocument = graphql(`
  mutation RenameTension($id: ID!, $input: RenameTensionInput!) {
    renameTension(id: $id, input: $input) { tension { ...TensionFields } event { version } }
  }
`);
const RescoreDocument = graphql(`
  mutation RescoreTension($id: ID!, $input: RescoreTensionInput!) {
    rescoreTension(id: $id, input: $input) { tension { ...TensionFields } event { version } }
  }
`);
const ReviseDocument = graphql(`
  mutation ReviseTensionContext($id: ID!, $input: ReviseTensionContextInput!) {
    reviseTensionContext(id: $id, input: $input) { tension { ...TensionFields } event { version } }
  }
`);
const LeadDocument = graphql(`
  mutation SetTensionLead($id: ID!, $input: SetTensionLeadInput!) {
    setTensionLead(id: $id, input: $input) { tension { ...TensionFields } event { version } }
  }
`);
const ReassignDocument = graphql(`
  mutation ReassignTension($id: ID!, $input: ReassignTensionInput!) {
    reassignTension(id: $id, input: $input) { tension { ...TensionFields } event { version } }
  }
`);

interface Props {
  kind: EditKind;
  tension: Tension;
  onClose: () => void;
  onDone: (r: { error?: CombinedError; event: unknown }) => void;
}

export function EditCommand({ kind, tension, onClose, onDone }: Props) {
  const { t } = useI18n();
  const { can } = useSession();
  const actors = useActorOptions();
  const users = useUserOptions();
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

  const run = async (): Promise<{ error?: CombinedError; event: unknown }> => {
    switch (kind) {
      case 'rename': {
        const r = await rename({ id, input: { name, expectedVersion } });
        return { error: r.error, event: r.data?.renameTension.event };
      }
      case 'rescore': {
        const r = await rescore({ id, input: { score: Number(score), expectedVersion } });
        return { error: r.error, event: r.data?.rescoreTension.event };
      }
      case 'revise': {
        // only what changed, so the event records exactly that (at least one key is sent)
        const input: { currentContext?: string | null; potentialFuture?: string | null; expectedVersion: number } = { expectedVersion };
        if (currentContext !== (tension.currentContext ?? '')) input.currentContext = currentContext || null;
        if (potentialFuture !== (tension.potentialFuture ?? '')) input.potentialFuture = potentialFuture || null;
        if (!('currentContext' in input) && !('potentialFuture' in input)) input.currentContext = tension.currentContext ?? null;
        const r = await revise({ id, input });
        return { error: r.error, event: r.data?.reviseTensionContext.event };
      }
      case 'lead': {
        const r = await lead({ id, input: { leadUserId: leadUserId || null, expectedVersion } });
        return { error: r.error, event: r.data?.setTensionLead.event };
      }
      case 'reassign': {
        const r = await reassign({ id, input: { actorId, expectedVersion } }, { additionalTypenames: ['Actor'] });
        return { error: r.error, event: r.data?.reassignTension.event };
      }
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const result = await run();
    setBusy(false);
    if (result.error && errorCode(result.error) !== 'VERSION_CONFLICT') setError(result.error);
    else onDone(result);
  };

  let fields: ReactNode;
  switch (kind) {
    case 'rename':
      fields = (
        <Field label={t('tension.field.name')} error={errorFor(error, 'name')}>
          {(p) => <input {...p} name="name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
        </Field>
      );
      break;
    case 'rescore':
      fields = (
        <Field label={t('tension.field.score')} error={errorFor(error, 'score')}>
          {(p) => <input {...p} name="score" type="number" min={1} max={10} step={1} required value={score} onChange={(e) => setScore(e.target.value)} autoFocus />}
        </Field>
      );
      break;
    case 'revise':
      fields = (
        <>
          <Field label={t('tension.field.currentContext')} error={errorFor(error, 'currentContext')}>
            {(p) => <textarea {...p} name="currentContext" rows={5} value={currentContext} onChange={(e) => setCurrent(e.target.value)} autoFocus />}
          </Field>
          <Field label={t('tension.field.potentialFuture')} error={errorFor(error, 'potentialFuture')}>
            {(p) => <textarea {...p} name="potentialFuture" rows={5} value={potentialFuture} onChange={(e) => setFuture(e.target.value)} />}
          </Field>
        </>
      );
      break;
    case 'lead':
      fields = (
        <Field label={can('users:read') ? t('tension.field.lead') : t('tension.leadId')} error={errorFor(error, 'leadUserId')}>
          {(p) =>
            can('users:read') ? (
              <select {...p} name="leadUserId" value={leadUserId} onChange={(e) => setLead(e.target.value)} autoFocus>
                <option value="">{t('tension.noLead')}</option>
                {users.map((u) => <option key={u.id} value={u.id}>{u.name}</option>)}
              </select>
            ) : (
              <input {...p} name="leadUserId" value={leadUserId} onChange={(e) => setLead(e.target.value)} autoFocus />
            )
          }
        </Field>
      );
      break;
    case 'reassign':
      fields = (
        <Field label={t('tension.field.actor')} error={errorFor(error, 'actorId')}>
          {(p) =>
            can('actors:read') ? (
              <select {...p} name="actorId" value={actorId} onChange={(e) => setActor(e.target.value)} autoFocus>
                {actors.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
              </select>
            ) : (
              <input {...p} name="actorId" required value={actorId} onChange={(e) => setActor(e.target.value)} autoFocus />
            )
          }
        </Field>
      );
      break;
  }

  return (
    <Dialog title={t(`tension.cmd.${kind}`)} open onClose={onClose}>
      <form onSubmit={submit} className="stack">
        {error ? <ErrorAlert error={error} /> : null}
        {fields}
        <div className="dialog-footer">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" variant="primary" disabled={busy}>{t('common.save')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
