/**
 * A person removed at the provider loses access without anyone touching payrun. payrun keeps the person's
 * latest refresh token and refreshes with it: on a console session's next request once the person was last
 * confirmed `recheckSeconds` ago, and for every owner of an active API key every `sweepSeconds`.
 *
 * Only a definite answer removes anyone: the provider's `invalid_grant` (the person is removed or disabled,
 * or their grant revoked) offboards them as `POST /v1/people/:subject/offboard` does (for the
 * configured issuer's person of that subject only: one provider speaks for its own people). A network
 * error, a timeout or a 5xx changes nothing but a log line and a metric: a provider outage must never lock
 * everyone out of payrun.
 */
import * as oidc from 'openid-client';
import { recordAudit } from '../../db/shared/audit-log';
import type { Db } from '../../db/shared/knex';
import {
  dueSessionPerson,
  keepConfirmation,
  peopleOwningActiveKeys,
  takeDueRecheck,
} from '../../db/identity/rechecks';
import type { Logger } from '../../platform/logger';
import { identityRechecks } from '../../platform/metrics';
import type { CodecKeyring } from '../../platform/payload-codec';
import { openSecret, sealSecret } from '../../platform/sealed-secrets';
import type { RequestHandler } from 'express';
import { offboardPerson } from './offboarding';
import type { ProviderClient } from './provider-client';
import { sessionIdOf } from './session-cookie';
import type { IdentitySettings } from './settings';

/** The actor the audit log names for an offboarding the provider's answer caused. */
export const RECHECK_ACTOR = 'system:identity-recheck';
/** A refresh that hangs must not hold the person's row (and their request) for long. */
const REFRESH_TIMEOUT_SECONDS = 10;

export interface RecheckDeps {
  db: Db;
  settings: IdentitySettings;
  provider: ProviderClient;
  /** Seals the refresh tokens kept at rest (the codec keyring, as for every stored secret). */
  keyring: CodecKeyring;
  logger: Logger;
}

export type RecheckOutcome = 'confirmed' | 'removed' | 'unavailable' | 'unchecked' | 'not_due';
type Trigger = 'session' | 'sweep';

/** The refresh token sealed to its person: a sealed token copied to another person's row does not open. */
const contextOf = (personId: string) => `refresh-token:${personId}`;
export const sealRefreshToken = (keyring: CodecKeyring, personId: string, token: string): string =>
  sealSecret(token, keyring, contextOf(personId));

function isInvalidGrant(error: unknown): boolean {
  return error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant' && error.status < 500;
}

/** Confirms one person at the provider when they are due; what came of it. */
export async function recheckPerson(
  deps: RecheckDeps,
  personId: string,
  trigger: Trigger,
): Promise<RecheckOutcome> {
  const outcome = await deps.db.transaction(async (trx): Promise<RecheckOutcome> => {
    const person = await takeDueRecheck(
      trx,
      { personId, issuer: deps.settings.issuer },
      deps.settings.recheckSeconds,
    );
    if (!person) return 'not_due';
    let refreshToken: string | undefined;
    try {
      refreshToken = person.refresh_token_sealed
        ? openSecret(person.refresh_token_sealed, deps.keyring, contextOf(personId))
        : undefined;
    } catch (error) {
      // Sealed under a key no longer in the keyring: unreadable, not a sign the person is gone.
      deps.logger.warn({ err: error, personId }, 'A kept refresh token cannot be opened');
    }
    if (!refreshToken) {
      // Signed in before tokens were kept, or the provider issues none: confirmed again at the next
      // sign-in; offboarding by hand still ends everything (docs/identity.md).
      await keepConfirmation(trx, personId, undefined);
      return 'unchecked';
    }
    try {
      const configuration = await deps.provider.configuration();
      configuration.timeout = REFRESH_TIMEOUT_SECONDS;
      const tokens = await oidc.refreshTokenGrant(configuration, refreshToken);
      // A rotating provider has just consumed the old token: the new one is kept in the same transaction.
      await keepConfirmation(
        trx,
        personId,
        tokens.refresh_token ? sealRefreshToken(deps.keyring, personId, tokens.refresh_token) : undefined,
      );
      return 'confirmed';
    } catch (error) {
      if (!isInvalidGrant(error)) {
        // Down, slow or broken: nothing changes; confirmed again after another window.
        deps.logger.warn(
          { err: error, personId },
          'The identity provider could not confirm a person; nothing changed',
        );
        await keepConfirmation(trx, personId, undefined);
        return 'unavailable';
      }
      const done = await offboardPerson(trx, {
        subject: person.subject,
        issuer: person.issuer,
        removedBy: RECHECK_ACTOR,
        onlyIssuer: true,
      });
      await recordAudit(trx, {
        actorKeyId: RECHECK_ACTOR,
        actorName: RECHECK_ACTOR,
        action: 'person.offboard',
        targetType: 'person',
        targetId: person.subject,
        outcome: 'succeeded',
        details: {
          reason: 'the identity provider refused the person’s refresh token (invalid_grant)',
          trigger,
          sessionsEnded: done.sessionsEnded,
          keysRevoked: done.keysRevoked,
        },
      });
      deps.logger.warn(
        { personId, sessionsEnded: done.sessionsEnded, keysRevoked: done.keysRevoked },
        'The identity provider no longer knows a person: offboarded',
      );
      return 'removed';
    }
  });
  if (outcome !== 'not_due') identityRechecks.inc({ trigger, outcome });
  return outcome;
}

/**
 * Before anything reads a console session: its person, when due, is confirmed at the provider first, so a
 * person removed there is refused on this very request (their sessions are ended by the offboarding).
 */
export function sessionRecheck(deps: RecheckDeps): RequestHandler {
  return (req, _res, next) => {
    const sessionId = req.header('authorization') === undefined ? sessionIdOf(req) : undefined;
    if (!sessionId) return next();
    dueSessionPerson(deps.db, sessionId, deps.settings.recheckSeconds)
      .then((personId) => (personId ? recheckPerson(deps, personId, 'session') : undefined))
      .then(() => next(), next);
  };
}

/** Confirms every owner of an active key; the outcomes counted. */
export async function sweepKeyOwners(deps: RecheckDeps): Promise<Record<RecheckOutcome, number>> {
  const counts: Record<RecheckOutcome, number> = {
    confirmed: 0,
    removed: 0,
    unavailable: 0,
    unchecked: 0,
    not_due: 0,
  };
  for (const personId of await peopleOwningActiveKeys(deps.db, deps.settings.issuer)) {
    counts[await recheckPerson(deps, personId, 'sweep')] += 1;
  }
  return counts;
}

/** The sweep on a timer, started and stopped with the API process's relay. */
export function keyOwnerSweep(deps: RecheckDeps) {
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  return {
    start() {
      timer ??= setInterval(() => {
        running = sweepKeyOwners(deps).catch((error: unknown) =>
          deps.logger.warn(
            { err: error },
            'Confirming key owners at the provider failed; the next sweep tries again',
          ),
        );
      }, deps.settings.sweepSeconds * 1000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
