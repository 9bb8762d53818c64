import type { Config } from '../../platform/config';

/** How notifications are claimed and relayed (receiver.ts, relay.ts). */
export interface NotificationSettings {
  /**
   * How long the process that claimed a notification has to signal it before a redelivery or the relay
   * may take it: a process that died mid-signal holds it this long at most.
   */
  claimLeaseSeconds: number;
  /** How often each API process's relay looks for stored notifications nobody signalled. */
  relayIntervalMs: number;
  /** Notifications one sweep claims at most; a full sweep is followed by another at once. */
  relayBatchSize: number;
}

export function notificationSettingsFrom(config: Config): NotificationSettings {
  return {
    claimLeaseSeconds: config.IPN_CLAIM_LEASE_SECONDS,
    relayIntervalMs: Math.round(config.IPN_RELAY_INTERVAL_SECONDS * 1000),
    relayBatchSize: 50,
  };
}
