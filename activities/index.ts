import type { GatewayClient } from '../gateway';
import type { Db } from '../db/knex';
import { ipnPaths } from '../platform/ipn-paths';
import { createDisbursementActivities } from './disbursement';
import { createPayoutActivities } from './payouts';
import { createRemittanceActivities } from './remittance';
import { createStackCheckActivities } from './stack-check';

export interface ActivityDependencies {
  db: Db;
  gateway: GatewayClient;
  /** Base URL the gateway uses to reach payrun's notification receivers (from configuration). */
  publicBaseUrl: string;
}

/** All activities, built from their dependencies so tests can hand in their own. */
export function createActivities(deps: ActivityDependencies) {
  return {
    ...createStackCheckActivities(deps),
    ...createPayoutActivities({ ...deps, batchIpnUrl: `${deps.publicBaseUrl}${ipnPaths.batch}` }),
    ...createRemittanceActivities({
      ...deps,
      remittanceIpnUrl: `${deps.publicBaseUrl}${ipnPaths.remittance}`,
    }),
    ...createDisbursementActivities({
      ...deps,
      disbursementIpnUrl: `${deps.publicBaseUrl}${ipnPaths.disbursement}`,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
