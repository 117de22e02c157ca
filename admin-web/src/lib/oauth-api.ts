// The consent and connected-apps endpoints (JSON over the session cookie; not GraphQL: OAuth lives at /oauth).

export interface ConsentDetails {
  client: { id: string; name: string; verified: boolean; redirectHost: string | null };
  /** null: the client asked for everything the person holds */
  requested: string[] | null;
  grantable: string[];
  csrfToken: string;
}

export interface ConnectedApp {
  id: string;
  client: { id: string; name: string; verified: boolean };
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(path, {
    ...init,
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'x-csrf-protection': '1', ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  if (res.status === 204) return undefined as T;
  const body = (await res.json().catch(() => ({}))) as { code?: string; detail?: string };
  if (!res.ok) throw new ApiError(res.status, body.code ?? 'error', body.detail ?? res.statusText);
  return body as T;
}

export const consentDetails = (uid: string) => call<ConsentDetails>(`/oauth/consent/${encodeURIComponent(uid)}/details`);

export const consentDecision = (uid: string, body: { decision: 'allow' | 'deny'; scopes?: string[]; csrfToken: string }) =>
  call<{ redirectTo: string }>(`/oauth/consent/${encodeURIComponent(uid)}/decision`, { method: 'POST', body: JSON.stringify(body) });

const appsPath = (userId?: string) => (userId ? `/api/v1/users/${encodeURIComponent(userId)}/connected-apps` : '/api/v1/me/connected-apps');

export const listConnectedApps = (userId?: string) => call<{ data: ConnectedApp[] }>(appsPath(userId));

export const revokeConnectedApp = (id: string, userId?: string) => call<void>(`${appsPath(userId)}/${encodeURIComponent(id)}`, { method: 'DELETE' });
