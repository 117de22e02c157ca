// Sense a new tension: name, actor, score, context and an optional lead.
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { Link, useRouter } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { useTitle } from '../lib/use-title.js';
import { errorFor } from '../lib/form-errors.js';
import { useActorOptions, useUserOptions } from '../components/options.js';
import { Alert, Button, ErrorAlert, Field, PageHeader } from '../components/ui.js';

const SenseTensionDocument = graphql(`
  mutation SenseTension($input: SenseTensionInput!) {
    senseTension(input: $input) {
      tension { id }
    }
  }
`);

export function TensionCreatePage() {
  const { t } = useI18n();
  useTitle(t('tension.create.title'));
  const { navigate } = useRouter();
  const { can } = useSession();
  const actors = useActorOptions();
  const users = useUserOptions();
  const [form, setForm] = useState({ name: '', actorId: '', score: '5', currentContext: '', potentialFuture: '', leadUserId: '' });
  const [{ fetching, error }, sense] = useMutation(SenseTensionDocument);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
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
    if (id) navigate(`/tensions/${id}`);
  };

  return (
    <>
      <PageHeader title={t('tension.create.title')} actions={<Link to="/tensions" className="btn btn-ghost">← {t('common.back')}</Link>} />
      <form className="card form" onSubmit={submit}>
        {can('actors:read') && actors.length === 0 ? <Alert kind="info">{t('tension.create.needActor')}</Alert> : null}
        {error ? <ErrorAlert error={error} /> : null}
        <Field label={t('tension.field.name')} error={errorFor(error, 'name')}>
          {(p) => <input {...p} name="name" required maxLength={200} value={form.name} onChange={set('name')} autoFocus />}
        </Field>
        <div className="form-row">
          <Field label={t('tension.field.actor')} error={errorFor(error, 'actorId')}>
            {(p) =>
              can('actors:read') ? (
                <select {...p} name="actorId" required value={form.actorId} onChange={set('actorId')}>
                  <option value="" disabled>—</option>
                  {actors.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
                </select>
              ) : (
                <input {...p} name="actorId" required value={form.actorId} onChange={set('actorId')} />
              )
            }
          </Field>
          <Field label={t('tension.field.score')} error={errorFor(error, 'score')}>
            {(p) => <input {...p} name="score" type="number" min={1} max={10} step={1} required value={form.score} onChange={set('score')} />}
          </Field>
        </div>
        <Field label={t('tension.field.currentContext')} optional error={errorFor(error, 'currentContext')}>
          {(p) => <textarea {...p} name="currentContext" rows={4} value={form.currentContext} onChange={set('currentContext')} />}
        </Field>
        <Field label={t('tension.field.potentialFuture')} optional error={errorFor(error, 'potentialFuture')}>
          {(p) => <textarea {...p} name="potentialFuture" rows={4} value={form.potentialFuture} onChange={set('potentialFuture')} />}
        </Field>
        {can('users:read') ? (
          <Field label={t('tension.field.lead')} optional error={errorFor(error, 'leadUserId')}>
            {(p) => (
              <select {...p} name="leadUserId" value={form.leadUserId} onChange={set('leadUserId')}>
                <option value="">{t('tension.noLead')}</option>
                {users.map((u) => <option key={u.id} value={u.id}>{u.name}</option>)}
              </select>
            )}
          </Field>
        ) : null}
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={fetching}>{t('tension.create.submit')}</Button>
        </div>
      </form>
    </>
  );
}
