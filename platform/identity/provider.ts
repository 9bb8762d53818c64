/**
 * payrun's own OpenID Connect provider for `npm run dev`, the cluster and compose: the maintained,
 * OpenID-certified `oidc-provider` library does the protocol (discovery, authorization code with PKCE,
 * JWT access tokens for payrun's audience, refresh tokens, JWKS, end session). What is ours is only the
 * people directory, the sign-in page and the policy below. A company replaces the whole process by
 * pointing OIDC_ISSUER at its own provider.
 */
import express, { type Express } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { PeopleDirectory } from './people';
import type { ProviderKeys } from './signing-keys';
import { escapeHtml, renderSignInPage } from './sign-in-page';
import { tokenStore } from './token-store';

export interface ProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  /**
   * The Temporal UI server (v2.42) sends no PKCE challenge; it is a confidential client (its secret stays on
   * its server) and binds the code to the browser with its own state and nonce cookies. Every other client
   * must use PKCE.
   */
  withoutPkce?: boolean;
}

export interface IdentityProviderOptions {
  issuer: string;
  /** The audience (resource indicator) of every access token: payrun's API and codec. */
  audience: string;
  clients: ProviderClient[];
  directory: PeopleDirectory;
  /** The one password of the directory's people: a demo provider, not a password store. */
  password: string;
  keys: ProviderKeys;
  /** Lifetime of an access token, in seconds. */
  accessTokenSeconds?: number;
  /**
   * The file grants and refresh tokens are kept in across restarts (platform/identity/token-store.ts);
   * unset: memory only.
   */
  tokenFile?: string;
}

/** Everything a token says about a person, from the directory at the moment it is issued. */
const SCOPE = 'openid profile email groups offline_access';
const RESOURCE_SCOPE = 'openid profile email groups';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

function consentedGrant(audience: string) {
  // Every client of this provider is payrun's own (console, Temporal UI): consent is implied, so a
  // grant is made on the spot instead of asking the person a question they cannot meaningfully answer.
  return async (ctx: KoaContextWithOIDC) => {
    const { client, session, result } = ctx.oidc;
    if (!client || !session?.accountId) return undefined;
    const existingId = result?.consent?.grantId ?? session.grantIdFor(client.clientId);
    if (existingId) {
      const existing = await ctx.oidc.provider.Grant.find(existingId);
      if (existing) return existing;
    }
    const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
    grant.addOIDCScope(SCOPE);
    grant.addResourceScope(audience, RESOURCE_SCOPE);
    await grant.save();
    return grant;
  };
}

export function createProvider(options: IdentityProviderOptions): Provider {
  const { directory, audience } = options;
  const withoutPkce = new Set(options.clients.filter((c) => c.withoutPkce).map((c) => c.clientId));
  const configuration: Configuration = {
    adapter: tokenStore(options.tokenFile),
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: options.keys.jwks as Configuration['jwks'],
    cookies: { keys: options.keys.cookieKeys },
    claims: {
      openid: ['sub'],
      profile: ['name'],
      email: ['email'],
      groups: ['groups'],
    },
    scopes: SCOPE.split(' '),
    // The ID token carries the person's claims: payrun's access token is for payrun's own audience, not
    // for the userinfo endpoint, so the client reads who signed in from the ID token.
    conformIdTokenClaims: false,
    pkce: {
      required: (_ctx: KoaContextWithOIDC, client: { clientId: string }) => !withoutPkce.has(client.clientId),
    },
    async findAccount(_ctx, subject) {
      const person = directory.find(subject);
      if (!person) return undefined;
      return {
        accountId: person.subject,
        claims: () => ({
          sub: person.subject,
          name: person.name,
          email: person.email,
          groups: person.groups,
        }),
      };
    },
    async extraTokenClaims(_ctx, token) {
      // The codec reads the person's groups from the access token itself, without a call back here.
      const person = 'accountId' in token && token.accountId ? directory.find(token.accountId) : undefined;
      return person ? { groups: person.groups, name: person.name } : undefined;
    },
    // Every refresh looks the person up again (findAccount): a person removed from the directory gets no
    // new tokens, and the console's session ends at its next refresh.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // payrun keeps the console's latest refresh token to ask later whether the person is still here
    // (api/identity/recheck.ts): it must outlive the sign-in session, or signing out would read as removal.
    expiresWithSession: async (ctx: KoaContextWithOIDC) => withoutPkce.has(ctx.oidc.client?.clientId ?? ''),
    loadExistingGrant: consentedGrant(audience),
    clientBasedCORS: () => false,
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: KoaContextWithOIDC, form: string) => {
          // The relying party asked to end the session: submit the provider's own confirmation form at once.
          ctx.type = 'html';
          ctx.body = `<!doctype html><html><head><title>Signing out</title></head><body>${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
<script>var f=document.forms['op.logoutForm'];var i=document.createElement('input');
i.type='hidden';i.name='logout';i.value='yes';f.appendChild(i);f.submit();</script></body></html>`;
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, resource: string) => {
          if (resource !== audience) throw new Provider.errors.InvalidTarget();
          return {
            scope: RESOURCE_SCOPE,
            audience,
            accessTokenTTL: options.accessTokenSeconds ?? 600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    ttl: {
      AccessToken: options.accessTokenSeconds ?? 600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Session: 12 * 3600,
      // Long enough that a key owner who does not sign in for weeks is still confirmable; a refresh token
      // used past 70% of its life is rotated (the library's default), so the sweep keeps it alive.
      Grant: 365 * 24 * 3600,
      RefreshToken: 30 * 24 * 3600,
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><html><head><title>Sign-in error</title></head><body><h1>Sign-in error</h1><pre>${escapeHtml(
        Object.entries(out)
          .map(([key, value]) => `${key}: ${String(value)}`)
          .join('\n'),
      )}</pre></body></html>`;
    },
  };
  return new Provider(options.issuer, configuration);
}

/** The provider with its sign-in page in front, as one Express app. */
export function identityApp(options: IdentityProviderOptions): { app: Express; provider: Provider } {
  const provider = createProvider(options);
  const expected = digest(options.password);
  const app = express();
  app.disable('x-powered-by');
  const form = express.urlencoded({ extended: false, limit: '4kb' });

  app.get('/interaction/:uid', async (req, res, next) => {
    try {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name !== 'login') {
        // Consent is implied for payrun's own clients (loadExistingGrant); finish whatever else is asked.
        await provider.interactionFinished(req, res, { consent: {} }, { mergeWithLastSubmission: true });
        return;
      }
      res.type('html').send(renderSignInPage({ uid: details.uid, people: options.directory.list() }));
    } catch (error) {
      next(error);
    }
  });

  app.post('/interaction/:uid/login', form, async (req, res, next) => {
    try {
      const details = await provider.interactionDetails(req, res);
      const subject = typeof req.body?.subject === 'string' ? req.body.subject.trim() : '';
      const password = typeof req.body?.password === 'string' ? req.body.password : '';
      const person = options.directory.find(subject);
      const passwordMatches = timingSafeEqual(digest(password), expected);
      if (!person || !passwordMatches) {
        res
          .status(401)
          .type('html')
          .send(
            renderSignInPage({
              uid: details.uid,
              people: options.directory.list(),
              error: 'That person or password was not accepted.',
            }),
          );
        return;
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: person.subject } },
        { mergeWithLastSubmission: false },
      );
    } catch (error) {
      next(error);
    }
  });

  app.use(provider.callback());
  return { app, provider };
}
