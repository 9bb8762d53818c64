import type { Config } from '../../platform/config';
import type { RateLimitSettings } from './rate-limits';

export function rateLimitSettingsFrom(config: Config): RateLimitSettings {
  return {
    perAddressPerMinute: config.RATE_LIMIT_PER_ADDRESS_PER_MINUTE,
    perKeyPerMinute: config.RATE_LIMIT_PER_KEY_PER_MINUTE,
    authFailuresPerMinute: config.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
    notificationsPerMinute: config.RATE_LIMIT_NOTIFICATIONS_PER_MINUTE,
    forgedNotificationsPerMinute: config.RATE_LIMIT_FORGERIES_PER_MINUTE,
  };
}
