// The audit trail as the admin app shows it (SPEC §11): where an entry's target lives in the app, and its changes
// as rows. The actions and target types themselves come from the API (`auditVocabulary`).
interface Target {
  type: string;
  id?: string | null;
}

/**
 * The page of an entry's target: a user's or role's own page; a key's owner (named by the entry that created
 * it), else the key's own activity; an actor's tensions.
 */
export function targetHref(target: Target, changes: unknown): string | null {
  if (!target.id) return null;
  switch (target.type) {
    case 'user':
      return `/users/${target.id}`;
    case 'role':
      return `/roles/${target.id}`;
    case 'key': {
      const owner = (changes as { userId?: { to?: unknown } } | null)?.userId?.to;
      return typeof owner === 'string' ? `/users/${owner}` : `/activity?targetId=${encodeURIComponent(target.id)}`;
    }
    case 'actor':
      return `/tensions?actorId=${encodeURIComponent(target.id)}`;
    default:
      return null;
  }
}

/** `{ field: { from, to } }` as display rows; values shortened so one entry stays one line per field. */
export function changeRows(changes: unknown): { field: string; from: string; to: string; fromValue: unknown; toValue: unknown }[] {
  if (!changes || typeof changes !== 'object') return [];
  return (
    Object.entries(changes as Record<string, { from?: unknown; to?: unknown } | null>)
      // a precondition, not a change: entries written before it was left out still carry it
      .filter(([field]) => field !== 'expectedVersion')
      .map(([field, c]) => ({ field, from: show(c?.from), to: show(c?.to), fromValue: c?.from, toValue: c?.to }))
  );
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '–';
  const text = Array.isArray(value)
    ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
