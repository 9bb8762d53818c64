import type { Config } from '../../platform/config';
import { DEFAULT_REMITTANCE_TIMING, type RemittanceTiming } from '../../workflows/remittance-definitions';

export interface RemittanceSettings {
  taskQueue: string;
  timing: RemittanceTiming;
}

export function remittanceSettingsFrom(config: Config): RemittanceSettings {
  return {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    timing: {
      ...DEFAULT_REMITTANCE_TIMING,
      quoteTtl: `${config.REMITTANCE_QUOTE_TTL_SECONDS} seconds`,
      ipnTimeout: `${config.PAYOUT_IPN_TIMEOUT_SECONDS} seconds`,
    },
  };
}
