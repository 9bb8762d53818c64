import type { Config } from '../../platform/config';

/** How notifications are stored, claimed and relayed (receiver.ts, relay.ts). */
export interface NotificationSettings {
  /**
   * How long the relay that claimed a notification has to signal it before another relay may take it: a
   * process that died mid-signal holds it this long at most.
   */
  claimLeaseSeconds: number;
  /**
   * How often each API process's relay sweeps the inbox on its own: the safety net under the wake-ups a
   * commit sends (in process, and to other processes by LISTEN/NOTIFY), and the pause before a row whose
   * signal failed (Temporal unreachable) is tried again.
   */
  relayIntervalMs: number;
  /** Workflows one claim takes at most, and notifications of each; a round that signalled some is followed by another. */
  relayBatchSize: number;
  /** Workflows one relay signals at once (IPN_RELAY_CONCURRENCY); one workflow's notifications go one by one. */
  relayConcurrency: number;
  /**
   * Unsignalled arrivals per second (stored in the last `relayYieldWindowSeconds`, not signalled yet) above
   * which the relays give way to the receiver (IPN_RELAY_YIELD_ABOVE): they signal only rows older than
   * `relayYieldMaxSeconds` until arrivals fall back. 0: never.
   */
  relayYieldAbove: number;
  /** The longest a notification waits for a burst to pass (IPN_RELAY_YIELD_MAX_SECONDS). */
  relayYieldMaxSeconds: number;
  /**
   * The window arrivals are counted over: a quarter of a second in every deployment (a burst's start is
   * seen before the relays have signalled many of its rows, which would slow its first answers), longer in
   * tests.
   */
  relayYieldWindowSeconds: number;
  /**
   * The previous design, kept for the ipn benchmark's comparison only (IPN_SIGNAL_BEFORE_ANSWER): the
   * receiver claims, signals Temporal and only then answers.
   */
  signalBeforeAnswer: boolean;
  /**
   * Which rows this API's receiver stamps and its relay takes. A deployment leaves it unset: every relay
   * takes every row. Tests that run several Temporal servers over one database give each API its own, so
   * no relay signals a workflow through a server that does not hold it (which it would count as finished).
   */
  relayScope?: string;
}

export function notificationSettingsFrom(config: Config): NotificationSettings {
  return {
    claimLeaseSeconds: config.IPN_CLAIM_LEASE_SECONDS,
    relayIntervalMs: Math.round(config.IPN_RELAY_INTERVAL_SECONDS * 1000),
    relayBatchSize: Math.max(50, config.IPN_RELAY_CONCURRENCY * 4),
    relayConcurrency: config.IPN_RELAY_CONCURRENCY,
    relayYieldAbove: config.IPN_RELAY_YIELD_ABOVE,
    relayYieldMaxSeconds: config.IPN_RELAY_YIELD_MAX_SECONDS,
    relayYieldWindowSeconds: 0.25,
    signalBeforeAnswer: config.IPN_SIGNAL_BEFORE_ANSWER,
  };
}
