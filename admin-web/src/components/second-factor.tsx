// My second factor on the account page (SPEC §16): enrol an authenticator app (QR code and secret,
// confirmed by a code), see the recovery codes once, or remove it with a current code.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { errorCode } from '../lib/errors.js';
import { Alert, Button, ErrorAlert, Field } from './ui.js';

const MyMfaDocument = graphql(`
  query MyMfa {
    myMfa { enrolled pending recoveryCodesLeft required }
  }
`);
const StartMfaDocument = graphql(`
  mutation StartMfaEnrolment {
    startMfaEnrolment { secret otpauthUri qrCodeSvg }
  }
`);
const ConfirmMfaDocument = graphql(`
  mutation ConfirmMfaEnrolment($code: String!) {
    confirmMfaEnrolment(code: $code) { recoveryCodes }
  }
`);
const DisableMfaDocument = graphql(`
  mutation DisableMyMfa($code: String!) {
    disableMyMfa(code: $code)
  }
`);

const svgDataUri = (svg: string) => `data:image/svg+xml;base64,${btoa(svg)}`;

export function SecondFactor() {
  const { t } = useI18n();
  const [{ data, error }, refetch] = useQuery({ query: MyMfaDocument, requestPolicy: 'network-only' });
  const [started, start] = useMutation(StartMfaDocument);
  const [confirmed, confirm] = useMutation(ConfirmMfaDocument);
  const [disabled, disable] = useMutation(DisableMfaDocument);
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const status = data?.myMfa;
  const enrolment = started.data?.startMfaEnrolment?.secret ? started.data.startMfaEnrolment : null;

  const onConfirm = async (e: FormEvent) => {
    e.preventDefault();
    const r = await confirm({ code: code.trim() });
    if (r.data) {
      setRecoveryCodes(r.data.confirmMfaEnrolment.recoveryCodes ?? []);
      setCode('');
      refetch();
    }
  };
  const onDisable = async (e: FormEvent) => {
    e.preventDefault();
    const r = await disable({ code: code.trim() });
    if (r.data) {
      setCode('');
      setRecoveryCodes(null);
      refetch();
    }
  };
  const wrongCode = (err: typeof confirmed.error) =>
    errorCode(err) === 'VALIDATION_FAILED' ? <Alert kind="error">{t('account.mfaWrongCode')}</Alert> : err ? <ErrorAlert error={err} /> : null;

  if (error) return <ErrorAlert error={error} />;
  if (!status) return null;
  return (
    <div className="stack">
      {status.required ? <Alert kind="warning">{t('account.mfaRequired')}</Alert> : null}
      {recoveryCodes ? (
        <div className="stack" data-testid="recovery-codes">
          <h3>{t('account.mfaCodesTitle')}</h3>
          <p className="muted">{t('account.mfaCodesIntro')}</p>
          <ul className="perm-list">
            {recoveryCodes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {status.enrolled ? (
        <form noValidate className="stack" onSubmit={onDisable}>
          <Alert kind="success">
            {t('account.mfaEnrolled')} {t('account.mfaCodesLeft', { count: status.recoveryCodesLeft })}
          </Alert>
          {wrongCode(disabled.error)}
          <Field label={t('account.mfaDisableCode')}>
            {(p) => (
              <input {...p} name="mfaDisableCode" autoComplete="one-time-code" required maxLength={64} value={code} onChange={(e) => setCode(e.target.value)} />
            )}
          </Field>
          <div className="form-actions">
            <Button type="submit" variant="danger" disabled={disabled.fetching}>
              {t('account.mfaDisable')}
            </Button>
          </div>
        </form>
      ) : enrolment ? (
        <form noValidate className="stack" onSubmit={onConfirm}>
          <p className="muted">{t('account.mfaScan')}</p>
          <img src={svgDataUri(enrolment.qrCodeSvg ?? '')} alt={enrolment.otpauthUri ?? ''} width={200} height={200} />
          <div>
            <span className="muted">{t('account.mfaSecret')}: </span>
            <code data-testid="mfa-secret">{enrolment.secret}</code>
          </div>
          {wrongCode(confirmed.error)}
          <Field label={t('account.mfaCode')}>
            {(p) => (
              <input
                {...p}
                name="mfaCode"
                autoComplete="one-time-code"
                inputMode="numeric"
                pattern="[0-9]{6}"
                required
                maxLength={6}
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            )}
          </Field>
          <div className="form-actions">
            <Button type="submit" variant="primary" disabled={confirmed.fetching}>
              {t('account.mfaConfirm')}
            </Button>
          </div>
        </form>
      ) : (
        <>
          {disabled.data ? <Alert kind="success">{t('account.mfaRemoved')}</Alert> : null}
          <p className="muted">{t('account.mfaIntro')}</p>
          {started.error ? <ErrorAlert error={started.error} /> : null}
          <div className="form-actions">
            <Button variant="primary" disabled={started.fetching} onClick={() => void start({})}>
              {t('account.mfaStart')}
            </Button>
          </div>
        </>
      )}
    </div>
  );
}
