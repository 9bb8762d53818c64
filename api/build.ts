/**
 * How every API process is built: `api/main.ts`, `npm run dev` and the bench harness call this, with
 * every capability's settings read from the validated configuration (`apiSettingsFrom`). A process is
 * its app and its notification relay: start the relay once the app listens, stop it before closing.
 */
import type { Express } from 'express';
import type { Client } from '@temporalio/client';
import type { SigningKeys } from '../gateway';
import type { Db } from '../db/shared/knex';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { AesGcmPayloadCodec, type CodecKeyring } from '../platform/payload-codec';
import { apiListeners, createApp, notificationRelay, type ApiDependencies } from './app';
import type { NotificationRelay } from './ipn/relay';
import { rateLimitSettingsFrom } from './http/rate-limit-settings';
import { apiSettingsFrom } from './settings';
import { webhookSettingsFrom } from './events/webhook-settings';
import { identitySettingsFrom } from './identity/settings';
import { providerClient } from './identity/provider-client';
import type { DevMailbox } from './subscriptions/dev-mail-routes';

export interface ApiServices {
  db: Db;
  temporal: Client;
  logger: Logger;
  merchant: SigningKeys & { partnerCode: string };
  keyring: CodecKeyring;
  /** Where the Temporal UI runs: its origin may call /codec, and the console links workflows to it. */
  /** `uiToken`: `npm run dev` only, the secret path the dev UI decodes at (`/codec/<token>`). */
  temporalUi?: { origins: string[]; url?: string; uiToken?: string };
  /** npm run dev / npm run cluster: the mail catcher whose inbox GET /v1/dev/mail shows. */
  devMailbox?: DevMailbox;
}

export interface ApiProcess {
  app: Express;
  /**
   * Signals the stored notifications (and the notice requests, and rechecks API keys' owners); an API process
   * runs it unless API_RUNS_RELAY=false hands the work to relay processes.
   */
  relay: NotificationRelay;
  /** Started when the process listens, stopped when it closes (`apiListeners`). */
  listeners: ReturnType<typeof apiListeners>;
}

export function buildApi(config: Config, services: ApiServices): ApiProcess {
  const deps = apiDependenciesFrom(config, services);
  return { app: createApp(deps), relay: notificationRelay(deps), listeners: apiListeners(deps) };
}

/**
 * A relay process's work (`api/relay-main.ts`): what an API process's relay does, built from the same
 * configuration, without the app. It runs beside API processes started with API_RUNS_RELAY=false.
 */
export function buildRelay(config: Config, services: ApiServices): NotificationRelay {
  return notificationRelay(apiDependenciesFrom(config, services));
}

function apiDependenciesFrom(config: Config, services: ApiServices): ApiDependencies {
  const ui = services.temporalUi;
  const apiHost = config.API_HOST === '0.0.0.0' ? '127.0.0.1' : config.API_HOST;
  // The provider sends browsers back to <this>/auth/callback: the address people reach payrun at.
  const identity = identitySettingsFrom(
    config,
    config.PUBLIC_BASE_URL ?? `http://${apiHost}:${config.API_PORT}`,
  );
  const deps: ApiDependencies = {
    db: services.db,
    temporal: services.temporal,
    logger: services.logger,
    merchant: services.merchant,
    keyring: services.keyring,
    ...apiSettingsFrom(config),
    rateLimits: rateLimitSettingsFrom(config),
    ...(config.TRUSTED_PROXIES !== undefined && { trustedProxies: config.TRUSTED_PROXIES }),
    webhooks: webhookSettingsFrom(config, services.keyring),
    ...(ui?.origins.length && {
      codec: {
        codec: new AesGcmPayloadCodec(services.keyring),
        allowedOrigins: ui.origins,
        uiToken: ui.uiToken,
      },
    }),
    ...(identity && {
      identity: { settings: identity, provider: providerClient(identity), keyring: services.keyring },
    }),
    console: { temporalUiUrl: ui?.url ?? config.TEMPORAL_UI_URL, namespace: config.TEMPORAL_NAMESPACE },
    ...(services.devMailbox && { devMailbox: services.devMailbox }),
  };
  return deps;
}
