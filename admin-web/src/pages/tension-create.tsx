// Sense a new tension: name, actor, score, context and an optional lead.
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { Link, useRouter, useUnsavedChanges } from '../lib/router.js';
import { useTitle } from '../lib/use-title.js';
import { fieldMessage } from '../lib/refusals.js';
import { ActorField, UserField } from '../components/pickers.js';
import { Button, ErrorAlert, Field, PageHeader } from '../components/ui.js';

const SenseTensionDocument = graphql(`
  mutation SenseTension($input: SenseTensionInput!) {
    senseTension(input: $input) {
      tension { id }
    }
  }
`);

const EMPTY = { name: '', actorId: '', score: '5', currentContext: '', potentialFuture: '', leadUserId: '' };

export function TensionCreatePage() {
  const { t } = useI18n();
  useTitle(t('tension.create.title'));
  const { navigate } = useRouter();
  const [form, setForm] = useState(EMPTY);
  useUnsavedChanges(JSON.stringify(form) !== JSON.stringify(EMPTY), t('common.unsavedLeave'));
  const [{ fetching, error }, sense] = useMutation(SenseTensionDocument);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  // no actor chosen is a missing field, not one "not in the expected format" (what the server says of an empty id)
  const [tried, setTried] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    const result = await sense(
      {
        input: {
          name: form.name,
          actorId: form.actorId,
          score: Number(form.score),
          currentContext: form.currentContext || null,
          potentialFuture: form.potentialFuture || null,
          leadUserId: form.leadUserId || null,
        },
      },
      { additionalTypenames: ['Tension', 'Actor'] },
    );
    const id = result.data?.senseTension.tension?.id;
    if (id) navigate(`/tensions/${id}`, { force: true });
  };

  return (
    <>
      <PageHeader
        title={t('tension.create.title')}
        actions={
          <Link to="/tensions" className="btn btn-ghost">
            ← {t('common.back')}
          </Link>
        }
      />
      <form noValidate className="card form" onSubmit={submit}>
        {error ? <ErrorAlert error={error} /> : null}
        <Field label={t('tension.field.name')} error={fieldMessage(t, error, 'name')}>
          {(p) => <input {...p} name="name" required maxLength={200} value={form.name} onChange={set('name')} autoFocus />}
        </Field>
        <div className="form-row">
          <ActorField
            label={t('tension.field.actor')}
            error={tried && !form.actorId ? t('field.required') : fieldMessage(t, error, 'actorId')}
            value={form.actorId}
            onChange={(actorId) => setForm((f) => ({ ...f, actorId }))}
          />
          <Field label={t('tension.field.score')} error={fieldMessage(t, error, 'score')}>
            {(p) => <input {...p} name="score" type="number" min={1} max={10} step={1} required value={form.score} onChange={set('score')} />}
          </Field>
        </div>
        <Field label={t('tension.field.currentContext')} optional error={fieldMessage(t, error, 'currentContext')}>
          {(p) => <textarea {...p} name="currentContext" rows={4} value={form.currentContext} onChange={set('currentContext')} />}
        </Field>
        <Field label={t('tension.field.potentialFuture')} optional error={fieldMessage(t, error, 'potentialFuture')}>
          {(p) => <textarea {...p} name="potentialFuture" rows={4} value={form.potentialFuture} onChange={set('potentialFuture')} />}
        </Field>
        <UserField
          label={t('tension.field.lead')}
          optional
          status="active"
          noneLabel={t('tension.noLead')}
          error={fieldMessage(t, error, 'leadUserId')}
          value={form.leadUserId}
          onChange={(leadUserId) => setForm((f) => ({ ...f, leadUserId }))}
        />
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={fetching}>
            {t('tension.create.submit')}
          </Button>
        </div>
      </form>
    </>
  );
}
