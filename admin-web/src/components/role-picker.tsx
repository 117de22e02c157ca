// A checkbox list of roles (loaded when the user may read roles).
import { useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useSession } from '../lib/session.js';
import { useI18n } from '../i18n/index.js';

const RoleOptionsDocument = graphql(`
  query RoleOptions {
    roles(limit: 100) {
      data { id code name system inherits effectivePermissions }
    }
  }
`);

export function useRoleOptions() {
  const { can } = useSession();
  const [{ data }] = useQuery({ query: RoleOptionsDocument, pause: !can('roles:read') });
  return data?.roles.data ?? [];
}

export function RolePicker({
  legend,
  hideLegend,
  value,
  onChange,
  exclude,
  disabled,
}: {
  legend: string;
  /** when a heading right above already says it */
  hideLegend?: boolean;
  value: string[];
  onChange: (ids: string[]) => void;
  /** roles not offered (the role itself, and those that would make an inheritance cycle) */
  exclude?: string[];
  disabled?: boolean;
}) {
  const { can } = useSession();
  const { t } = useI18n();
  const roles = useRoleOptions().filter((r) => !exclude?.includes(r.id));
  // SPEC §2: a role can only be given or taken away by someone holding all it carries; not offered otherwise
  const beyondMe = (r: { effectivePermissions: string[] }) => r.effectivePermissions.some((p) => !can(p));
  const toggle = (id: string, on: boolean) => onChange(on ? [...value, id] : value.filter((v) => v !== id));
  return (
    <fieldset className="checks" disabled={disabled}>
      <legend className={hideLegend ? 'visually-hidden' : undefined}>{legend}</legend>
      {roles.map((r) => (
        <label key={r.id} className="check">
          <input
            type="checkbox"
            name="role"
            value={r.id}
            checked={value.includes(r.id)}
            disabled={beyondMe(r)}
            aria-describedby={beyondMe(r) ? `${r.id}-beyond` : undefined}
            onChange={(e) => toggle(r.id, e.target.checked)}
          />
          <span>
            {r.name} <code className="muted">{r.code}</code>
            {beyondMe(r) ? (
              <span id={`${r.id}-beyond`} className="field-hint block-note">
                {t('roles.beyondYou')}
              </span>
            ) : null}
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** The role and every role that inherits from it, directly or transitively: inheriting any of them is a cycle. */
export function inheritorsOf(roleId: string, roles: { id: string; inherits: string[] }[]): string[] {
  const found = new Set([roleId]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of roles) {
      if (!found.has(r.id) && r.inherits.some((id) => found.has(id))) {
        found.add(r.id);
        grew = true;
      }
    }
  }
  return [...found];
}
