/**
 * The harness itself: a test that ends while an activity is still running must not leave the test server's
 * time locked for the next test of the file (support.ts lets running attempts finish before terminating).
 */
import { expect, it } from 'vitest';
import { refund } from '../../workflows/refund';
import { refundWorkflowId, type RefundOutcome } from '../../workflows/refund-definitions';
import { inTurn, ok, useWorkflowHarness } from './support';
const h = useWorkflowHarness();
const timing = {
  gatewayAttemptTimeout: '1 minute',
  firstCheck: '1 minute',
  maxInterval: '4 minutes',
  giveUpAfter: '20 minutes',
} as const;
const answer = (status: RefundOutcome['status'], resultCode: number): RefundOutcome => ({
  status,
  resultCode,
  message: 'x',
});
const start = (fakes: object) => {
  const refundId = h.id('rf');
  return h.start(refund, {
    workflowId: refundWorkflowId(refundId),
    args: [{ refundId, timing }],
    fakes: { markRefundNeedsAttention: ok, ...fakes },
  });
};
it('a test may end while one of its activities is still running', async () => {
  const run = await start({
    createRefund: async () => {
      await new Promise((r) => setTimeout(r, 1500));
      return answer('pending', 7000);
    },
  });
  expect((await run.reached('createRefund')).attempt).toBe(1);
});
it('the next test still skips time', async () => {
  const run = await start({
    createRefund: async () => answer('pending', 7000),
    queryRefund: inTurn(answer('pending', 7000), answer('succeeded', 0)),
  });
  expect(await run.result()).toMatchObject({ status: 'succeeded' });
}, 20_000);
