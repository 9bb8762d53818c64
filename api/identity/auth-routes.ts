/**
 * The console's sign-in through the provider (authorization code with PKCE, state and nonce):
 *
 *   GET  /auth/login     → 302 to the provider
 *   GET  /auth/callback  → checks the provider's answer, opens a session, 302 to /console
 *   GET  /auth/session   → { person, roles, csrfToken, expiresAt } | 401
 *   POST /auth/logout    → ends the session (X-CSRF-Token), { endSessionUrl } to end it at the provider too
 *
 * Not part of the OpenAPI document: these are browser redirects, not API calls.
 */
import express, { Router, type Request, type Response } from 'express';
import * as oidc from 'openid-client';
import type { ErrorCode } from '../../contracts/shared';
import type { Db } from '../../db/shared/knex';
import type { Logger } from '../../platform/logger';
import { recordSignIn } from '../../db/identity/people';
import { keepConfirmation } from '../../db/identity/rechecks';
import type { CodecKeyring } from '../../platform/payload-codec';
import {
  createSession,
  endSession,
  saveSignInAttempt,
  takeSignInAttempt,
  useSession,
} from '../../db/identity/sessions';
import { rolesFromClaims } from './role-mapping';
import type { ProviderClient } from './provider-client';
import { sealRefreshToken } from './recheck';
import { clearSessionCookie, CSRF_HEADER, sessionIdOf, setSessionCookie } from './session-cookie';
import type { IdentitySettings } from './settings';

const SCOPE = 'openid profile email groups offline_access';

function refuse(res: Response, status: number, code: ErrorCode, message: string): void {
  res.status(status).json({ error: { code, message } });
}

export function authRoutes(deps: {
  db: Db;
  settings: IdentitySettings;
  provider: ProviderClient;
  keyring: CodecKeyring;
  logger: Logger;
}): Router {
  const { db, settings, provider } = deps;
  const callbackUrl = () => new URL('/auth/callback', settings.publicBaseUrl).href;
  const router = Router();
  router.use('/auth', (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  router.get('/auth/login', async (_req, res) => {
    let configuration: oidc.Configuration;
    try {
      configuration = await provider.configuration();
    } catch (error) {
      deps.logger.error({ err: error }, 'The identity provider cannot be reached');
      refuse(
        res,
        503,
        'identity_provider_unavailable',
        'The identity provider cannot be reached; try again shortly.',
      );
      return;
    }
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    await saveSignInAttempt(db, { state, codeVerifier, nonce });
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: callbackUrl(),
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      prompt: 'login',
    });
    res.redirect(302, url.href);
  });

  router.get('/auth/callback', async (req, res) => {
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    const attempt = state ? await takeSignInAttempt(db, state) : undefined;
    if (!attempt) {
      refuse(res, 400, 'sign_in_failed', 'This sign-in is unknown or too old: start again from the console.');
      return;
    }
    let claims: Record<string, unknown>;
    let idToken: string | undefined;
    let refreshToken: string | undefined;
    try {
      const configuration = await provider.configuration();
      const currentUrl = new URL(req.originalUrl, settings.publicBaseUrl);
      const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: attempt.codeVerifier,
        expectedState: state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
      claims = (tokens.claims() ?? {}) as Record<string, unknown>;
      idToken = tokens.id_token;
      refreshToken = tokens.refresh_token;
    } catch (error) {
      deps.logger.warn({ err: error }, 'A sign-in was refused by the provider or failed its checks');
      refuse(res, 401, 'sign_in_failed', 'The identity provider did not confirm this sign-in.');
      return;
    }
    const subject = typeof claims.sub === 'string' ? claims.sub : '';
    const person = await recordSignIn(db, {
      issuer: settings.issuer,
      subject,
      name: typeof claims.name === 'string' && claims.name ? claims.name : subject,
      email: typeof claims.email === 'string' ? claims.email : null,
      roles: rolesFromClaims(claims, settings.roleClaim, settings.roleMap),
    });
    if (person.removed_at) {
      refuse(res, 403, 'person_removed', 'This person was offboarded from payrun and cannot sign in.');
      return;
    }
    // The latest refresh token is what lets payrun learn later that the provider removed this person.
    await keepConfirmation(
      db,
      person.person_id,
      refreshToken ? sealRefreshToken(deps.keyring, person.person_id, refreshToken) : undefined,
    );
    const { sessionId } = await createSession(db, {
      personId: person.person_id,
      roles: person.roles,
      idToken,
      idleSeconds: settings.idleSeconds,
      maxSeconds: settings.maxSeconds,
    });
    setSessionCookie(req, res, sessionId, settings.maxSeconds);
    res.redirect(302, '/console');
  });

  router.get('/auth/session', async (req, res) => {
    const sessionId = sessionIdOf(req);
    const session = sessionId ? await useSession(db, sessionId) : undefined;
    if (!session) {
      refuse(res, 401, 'unauthorized', 'Not signed in.');
      return;
    }
    res.json({
      person: { id: session.person_id, subject: session.subject, name: session.name },
      roles: session.roles,
      csrfToken: session.csrf_token,
      expiresAt: session.expires_at,
    });
  });

  router.post('/auth/logout', express.json({ limit: '1kb' }), async (req: Request, res) => {
    const sessionId = sessionIdOf(req);
    const session = sessionId ? await useSession(db, sessionId) : undefined;
    if (!sessionId || !session) {
      clearSessionCookie(req, res);
      res.json({ endSessionUrl: null });
      return;
    }
    // Signing out is a change made with the cookie: a page of another site must not end the session.
    if (req.header(CSRF_HEADER) !== session.csrf_token) {
      refuse(res, 403, 'forbidden', `Signing out needs the session's CSRF token in ${CSRF_HEADER}.`);
      return;
    }
    const ended = await endSession(db, sessionId);
    clearSessionCookie(req, res);
    let endSessionUrl: string | null = null;
    try {
      const configuration = await provider.configuration();
      if (configuration.serverMetadata().end_session_endpoint) {
        endSessionUrl = oidc.buildEndSessionUrl(configuration, {
          ...(ended?.id_token ? { id_token_hint: ended.id_token } : {}),
          post_logout_redirect_uri: new URL('/console', settings.publicBaseUrl).href,
        }).href;
      }
    } catch {
      // The provider is down: the session here has ended, which is what protects payrun.
    }
    res.json({ endSessionUrl });
  });
  return router;
}
