/**
 * The part of `oidc-provider` 8's API payrun uses (the package ships no types, and no types package is
 * installed). Loose where the library is loose: configuration is checked by the library at start-up.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Grant {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }
  interface GrantConstructor {
    new (properties: { clientId: string; accountId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }
  export interface ClientLike {
    clientId: string;
    grantTypeAllowed(type: string): boolean;
  }
  export interface KoaContextWithOIDC {
    body: unknown;
    type: string;
    oidc: {
      client?: ClientLike;
      session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
      result?: { consent?: { grantId?: string } };
      provider: Provider;
    };
  }
  export interface Account {
    accountId: string;
    claims(): Record<string, unknown> | Promise<Record<string, unknown>>;
  }
  export interface Configuration {
    clients?: Array<Record<string, unknown>>;
    adapter?: new (model: string) => unknown;
    jwks?: { keys: Array<Record<string, unknown>> };
    cookies?: { keys: string[] };
    claims?: Record<string, string[]>;
    scopes?: string[];
    conformIdTokenClaims?: boolean;
    pkce?: { required: (ctx: KoaContextWithOIDC, client: { clientId: string }) => boolean };
    findAccount: (ctx: KoaContextWithOIDC, subject: string) => Promise<Account | undefined>;
    extraTokenClaims?: (
      ctx: KoaContextWithOIDC,
      token: { kind: string; accountId?: string },
    ) => Promise<Record<string, unknown> | undefined>;
    issueRefreshToken?: (ctx: KoaContextWithOIDC, client: ClientLike) => Promise<boolean>;
    expiresWithSession?: (ctx: KoaContextWithOIDC) => Promise<boolean>;
    loadExistingGrant?: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>;
    clientBasedCORS?: () => boolean;
    features?: Record<string, unknown>;
    ttl?: Record<string, number>;
    renderError?: (ctx: KoaContextWithOIDC, out: Record<string, unknown>, error: Error) => Promise<void>;
  }
  export interface InteractionDetails {
    uid: string;
    prompt: { name: string };
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    static errors: { InvalidTarget: new () => Error };
    Grant: GrantConstructor;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
