/** The whole workload, driven at once: every capability's driver runs concurrently. */
import type { ChaosSize } from '../sizes';
import type { WorkloadContext, DriveFailure } from './context';
import { drivePayouts, type PayoutsDriven } from './payouts';
import { driveSubscriptions, type SubscriptionsDriven } from './subscriptions';
import { driveSavedMethodPayments, type SavedMethodPaymentsDriven } from './saved-method-payments';
import { driveDisbursements, type DisbursementsDriven } from './disbursements';
import { driveRemittances, type RemittancesDriven } from './remittances';
import { drivePayments, type PaymentsDriven } from './payments';

export type { WorkloadContext, ChaosKeys, DriveFailure } from './context';

export interface Workload {
  payouts: PayoutsDriven;
  subscriptions: SubscriptionsDriven;
  savedMethodPayments: SavedMethodPaymentsDriven;
  disbursements: DisbursementsDriven;
  remittances: RemittancesDriven;
  payments: PaymentsDriven;
}

export async function driveWorkload(ctx: WorkloadContext, size: ChaosSize['workload']): Promise<Workload> {
  const [payouts, subscriptions, savedMethodPayments, disbursements, remittances, payments] =
    await Promise.all([
      drivePayouts(ctx, { runs: size.payoutRuns, rowsPerRun: size.rowsPerRun }),
      driveSubscriptions(ctx, size.subscriptions),
      driveSavedMethodPayments(ctx, size.savedMethodPayments),
      driveDisbursements(ctx, size.disbursements),
      driveRemittances(ctx, size.remittances),
      drivePayments(ctx, size.paymentsWithRefunds),
    ]);
  return { payouts, subscriptions, savedMethodPayments, disbursements, remittances, payments };
}

export const driveFailures = (workload: Workload): DriveFailure[] =>
  Object.values(workload).flatMap((driven: { failures: DriveFailure[] }) => driven.failures);
