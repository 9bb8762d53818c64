import type { Config } from '../../platform/config';
import type { CodecKeyring } from '../../platform/payload-codec';
import { DEFAULT_WEBHOOK_TIMING, type WebhookTiming } from '../../contracts/events';

export interface WebhookSettings {
  /** Task queue of the delivery workflows. */
  taskQueue: string;
  timing: WebhookTiming;
  /** Seals each endpoint's signing secret at rest (the payload codec keyring: one rotation story). */
  keyring: CodecKeyring;
  /** Development only: endpoints may be http:// on loopback. */
  allowLoopbackHttp: boolean;
}

export function webhookSettingsFrom(config: Config, keyring: CodecKeyring): WebhookSettings {
  return {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    timing: DEFAULT_WEBHOOK_TIMING,
    keyring,
    allowLoopbackHttp: config.WEBHOOK_ALLOW_LOOPBACK_HTTP,
  };
}
