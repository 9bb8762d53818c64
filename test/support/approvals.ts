/**
 * What the approval tests share: a small policy whose bands a test reaches with small amounts, the
 * workflow's own view of a waiting item, and what the sandbox gateway saw of one item's orders.
 */
import type { Client } from '@temporalio/client';
import { approvalStateQuery } from '../../contracts/approvals';
import { loadConfig } from '../../platform/config';
import type { Sandbox } from '../../sandbox';
import { eventually } from './wait';

const band = (fromVnd: number, approvers: number) => ({ fromVnd, approvers, roles: ['payouts-approver'] });
const kind = {
  bands: [band(0, 0), band(1_000_000, 1), band(5_000_000, 2)],
  perMakerDailyVnd: 30_000_000,
  perMerchantDailyVnd: 1_000_000_000,
};

/** Free below 1,000,000 VND, one approver from there, two from 5,000,000; 30,000,000 a maker a day. */
export const TEST_APPROVAL_POLICY = loadConfig({
  APPROVAL_POLICY: JSON.stringify({
    expiresAfterHours: 2,
    kinds: { disbursement: kind, refund: kind, remittance: kind },
  }),
}).APPROVAL_POLICY;

/** The waiting workflow's approval state and what the Temporal UI shows of it, once it waits. */
export const approvalWaitOf = (client: Client, workflowId: string) =>
  eventually(async () => {
    const handle = client.workflow.getHandle(workflowId);
    const state = await handle.query(approvalStateQuery);
    const { currentDetails } = (await handle.query('__temporal_workflow_metadata')) as {
      currentDetails: string;
    };
    return { state, currentDetails };
  });

/** Every gateway order of an item starts with its id (`<id>`, `<id>-verify`, `<id>-buy`, …). */
export const gatewaySaw = (sandbox: Sandbox, id: string) => ({
  movements: sandbox.admin.ledger().filter((entry) => entry.orderId.startsWith(id)),
  calls: sandbox.admin.requests().filter((entry) => entry.orderId?.startsWith(id)),
});
