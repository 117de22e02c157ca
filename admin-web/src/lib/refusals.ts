// Refusals in the operator's language: a GraphQL error's code (SPEC §7) and each field error's code and params
// become catalogue sentences; the server's English text is never shown, except stripped of markup as a last resort.
import type { CombinedError } from 'urql';
import { isMessageKey } from '../i18n/translate.js';
import type { MessageKey } from '../i18n/en.js';
import type { Params } from '../i18n/translate.js';
import { errorCode, fieldErrors, type FieldError } from './errors.js';

type T = (key: MessageKey, params?: Params) => string;

/** The form field a refusal is about, so it can be shown right there. */
const REFUSAL_FIELD: Record<string, string> = {
  EMAIL_TAKEN: 'email',
  CODE_TAKEN: 'code',
  ROLE_CYCLE: 'inherits',
  ACTOR_NOT_FOUND: 'actorId',
  USER_NOT_FOUND: 'leadUserId',
  ACTOR_NOT_AGENT_TYPE: 'linkedActorId',
  LAST_ADMIN: 'roleIds',
};

/** The sentence for an error as a whole (no "Something went wrong: <server text>" for an expected refusal). */
export function refusalText(t: T, error: CombinedError): string {
  const code = errorCode(error);
  if (code === 'VALIDATION_FAILED') return t('error.validation');
  const key = `refusal.${(code ?? '').toLowerCase()}`;
  if (code && isMessageKey(key)) return t(key);
  return t('error.unexpected');
}

function readable(message: string): string {
  return message.replace(/`/g, '').replace(/^\s*[\w.[\]]+:\s*/, '');
}

/** One field error in words: its code and params through the catalogue, else the server's message without markup. */
export function fieldErrorText(t: T, e: FieldError): string {
  const params = e.params ?? {};
  if (e.code === 'too_short' && params.min === 1) return t('field.required');
  const key = `field.${e.code ?? ''}`;
  if (e.code && isMessageKey(key)) {
    const values = Array.isArray(params.values) ? params.values.join(', ') : undefined;
    return t(key, { ...params, values });
  }
  return readable(e.message);
}

/** Field names as the forms label them ("Name: At most 200 characters."), never the raw path. */
const FIELD_LABEL: Record<string, MessageKey> = {
  name: 'common.name',
  email: 'common.email',
  type: 'common.type',
  password: 'users.password',
  newPassword: 'account.newPassword',
  currentPassword: 'account.currentPassword',
  code: 'roles.code',
  permissions: 'roles.permissions',
  inherits: 'roles.inherits',
  roleIds: 'users.roles',
  linkedActorId: 'users.linkedActor',
  actorId: 'tension.field.actor',
  leadUserId: 'tension.field.lead',
  score: 'tension.field.score',
  currentContext: 'tension.field.currentContext',
  potentialFuture: 'tension.field.potentialFuture',
  expiresAt: 'keys.expiresAt',
};

export function fieldLabel(t: T, path: string): string {
  const last =
    String(path)
      .split(/[./]/)
      .filter((s) => !/^\d+$/.test(s))
      .pop() ?? '';
  const key = FIELD_LABEL[last];
  return key ? `${t(key)}: ` : '';
}

function matches(path: string, field: string): boolean {
  return path === field || path.endsWith(`.${field}`) || path.endsWith(`/${field}`);
}

/** What to show under a form field: its validation error, or a refusal that concerns it. */
export function fieldMessage(t: T, error: CombinedError | undefined | null, field: string): string | undefined {
  if (!error) return undefined;
  const match = fieldErrors(error).find((e) => matches(String(e.path), field));
  if (match) return fieldErrorText(t, match);
  const code = errorCode(error);
  if (code && REFUSAL_FIELD[code] === field) return refusalText(t, error);
  return undefined;
}
