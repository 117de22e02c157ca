// oidc-provider's storage adapter over `oauth_store` (persistence/oauth-store.ts). Codes and tokens are bearer
// secrets and are kept as keys are: the row's id is their SHA-256 and the payload does not repeat them.
import { hashApiKey } from '../domain/api-key.js';
import type { Deps } from '../application/context.js';
import {
  consumeOAuthRow,
  destroyOAuthRow,
  findOAuthRow,
  findOAuthRowByUid,
  revokeOAuthGrant,
  upsertOAuthRow,
  type StoredRow,
} from '../persistence/oauth-store.js';
import { reader } from '../persistence/transaction.js';

/** The kinds whose id is a bearer secret. Sessions and interactions are looked up by uid and live minutes. */
const SECRET_KINDS = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'RegistrationAccessToken',
  'ClientCredentials',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PushedAuthorizationRequest',
]);

type Payload = Record<string, unknown>;

export function oauthAdapter(deps: Pick<Deps, 'orm' | 'clock'>) {
  return class DatabaseAdapter {
    readonly secret: boolean;
    constructor(readonly kind: string) {
      this.secret = SECRET_KINDS.has(kind);
    }

    private key(id: string): string {
      return this.secret ? hashApiKey(id) : id;
    }

    private revive(row: StoredRow | null, id?: string): Payload | undefined {
      if (!row) return undefined;
      const payload: Payload = { ...row.payload };
      if (this.secret && id !== undefined) payload.jti = id;
      if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
      return payload;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const stored = { ...payload };
      if (this.secret) delete stored.jti;
      const account = typeof payload.accountId === 'string' ? payload.accountId : null;
      await upsertOAuthRow(reader(deps.orm), {
        kind: this.kind,
        id: this.key(id),
        payload: stored,
        grantId: typeof payload.grantId === 'string' ? payload.grantId : null,
        // only grants and sessions tie a row to a person (a deleted person takes them along)
        userId: this.kind === 'Grant' || this.kind === 'Session' ? account : null,
        uid: typeof payload.uid === 'string' ? payload.uid : null,
        expiresAt: expiresIn ? new Date(deps.clock().getTime() + expiresIn * 1000) : null,
      });
    }

    async find(id: string): Promise<Payload | undefined> {
      return this.revive(await findOAuthRow(reader(deps.orm), this.kind, this.key(id)), id);
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      return this.revive(await findOAuthRowByUid(reader(deps.orm), this.kind, uid));
    }

    findByUserCode(): Promise<Payload | undefined> {
      return Promise.resolve(undefined);
    }

    async consume(id: string): Promise<void> {
      await consumeOAuthRow(reader(deps.orm), this.kind, this.key(id), deps.clock());
    }

    async destroy(id: string): Promise<void> {
      await destroyOAuthRow(reader(deps.orm), this.kind, this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await revokeOAuthGrant(reader(deps.orm), grantId);
    }
  };
}
