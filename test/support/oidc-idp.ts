// A real OpenID provider for single sign-on tests (SPEC §16): oidc-provider on 127.0.0.1, with its dev
// interactions (a login form taking any login name, then a consent page). The login name is the account's
// email; what the provider says about an account (verified, name, groups) is set by the test.
import { createServer, type Server } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { Provider } from 'oidc-provider';

export interface IdpAccount {
  verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** what the provider says about an email; an email not here is a verified account without groups */
  accounts: Map<string, IdpAccount>;
  close(): Promise<void>;
}

export async function startTestIdp(redirectUri: string): Promise<TestIdp> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const issuer = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const accounts = new Map<string, IdpAccount>();
  const clientId = 'market-service';
  const clientSecret = 'a-client-secret-of-the-test-provider-0123456789';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    cookies: { keys: ['test-idp-cookie-key-0123456789abcdef'] },
    jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256' }] },
    pkce: { required: () => true },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id) ?? {};
      return {
        accountId: id,
        claims: () => ({ sub: id, email: id, email_verified: account.verified ?? true, name: account.name ?? id.split('@')[0], groups: account.groups ?? [] }),
      };
    },
    features: { devInteractions: { enabled: true }, userinfo: { enabled: true } },
    // fixed lifetimes: left to oidc-provider's default functions, each printed a NOTICE into the test output
    ttl: { AccessToken: 3600, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
