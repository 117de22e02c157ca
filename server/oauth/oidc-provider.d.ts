// The part of oidc-provider (which ships no types) this service uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface GrantInstance {
    grantId?: string;
    accountId?: string;
    clientId?: string;
    addResourceScope(resource: string, scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    addOIDCScope(scope: string): void;
    rejectOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  export interface ClientInstance {
    clientId: string;
    clientName?: string;
    redirectUris?: string[];
    clientIdMetadataDocument?: boolean;
  }
  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown> & { client_id?: string; scope?: string; redirect_uri?: string; resource?: string | string[] };
    grantId?: string;
    session?: { accountId?: string };
  }
  export interface KoaContext {
    path: string;
    method: string;
    status: number;
    body: unknown;
    query: Record<string, unknown>;
    oidc?: {
      route?: string;
      client?: ClientInstance;
      entities?: Record<string, { grantId?: string; accountId?: string } | undefined>;
      params?: Record<string, unknown>;
      result?: { consent?: { grantId?: string } };
    };
    set(name: string, value: string): void;
  }
  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    on(event: string, listener: (...args: never[]) => void): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      opts?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    Grant: { new (init: { accountId: string; clientId: string }): GrantInstance; find(id: string): Promise<GrantInstance | undefined> };
    Client: { find(id: string): Promise<ClientInstance | undefined> };
  }
  export const errors: Record<string, new (description?: string) => Error>;
}
