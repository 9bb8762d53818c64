import type { Config } from '../../platform/config';
import { DEFAULT_REMITTANCE_TIMING, type RemittanceTiming } from '../../contracts/remittances';

export interface RemittanceSettings {
  taskQueue: string;
  timing: RemittanceTiming;
  /** How long GET /v1/remittance-quotes serves one rate per currency; unset: REMITTANCE_QUOTE_CACHE_SECONDS's default. */
  quoteCacheSeconds?: number;
}

export function remittanceSettingsFrom(config: Config): RemittanceSettings {
  return {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    quoteCacheSeconds: config.REMITTANCE_QUOTE_CACHE_SECONDS,
    timing: {
      ...DEFAULT_REMITTANCE_TIMING,
      quoteTtl: `${config.REMITTANCE_QUOTE_TTL_SECONDS} seconds`,
      ipnTimeout: `${config.REMITTANCE_IPN_TIMEOUT_SECONDS} seconds`,
    },
  };
}
