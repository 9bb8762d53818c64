/**
 * The hold switch in the workflows, with fake activities: a payout whose first pay attempt finds its kind
 * held waits without sending, refuses a forged release and pays once after a proved one; the release
 * workflow signals the held items at the chosen rate; the activities' check stops only a first attempt.
 */
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { checkDecisionProof } from '../../activities/shared/decision-proofs';
import { stopIfHeld } from '../../activities/holds/holds';
import { decisionSigner } from '../../api/http/decision-signer';
import {
  HELD,
  holdProofSubject,
  holdReleasedSignal,
  holdReleaseWorkflowId,
  type HoldReleaseInput,
} from '../../contracts/holds';
import { disbursementWorkflowId, type DisbursementInput } from '../../contracts/payouts';
import type { AdmitDecisionInput, DecisionAdmission } from '../../contracts/shared';
import type { Db } from '../../db/shared/knex';
import { disbursement } from '../../workflows/payouts/disbursement';
import { refund } from '../../workflows/payments/refund';
import { refundWorkflowId } from '../../contracts/payments';
import { holdRelease } from '../../workflows/holds/hold-release';
import { captureHistory } from '../support/history-capture';
import { TEST_DECISION_SIGNING_KEY } from '../support/settings';
import { ok, useWorkflowHarness, type Fakes } from '../support/workflow-harness';

const h = useWorkflowHarness();
const sign = decisionSigner(TEST_DECISION_SIGNING_KEY);

/** The workers' real check of a proof, with the test key, as the gate asks it (maxAgeMs included). */
const refused: string[] = [];
const admitDecision = async (input: AdmitDecisionInput): Promise<DecisionAdmission> => {
  const { subject, decision, proof, replayed, maxAgeMs } = input;
  const reason = replayed
    ? 'replayed'
    : checkDecisionProof(TEST_DECISION_SIGNING_KEY, { subject, ...decision }, proof, Date.now(), maxAgeMs);
  if (reason) refused.push(reason);
  return reason ? { admitted: false, reason, message: `refused: ${reason}` } : { admitted: true };
};

const wallet = { kind: 'wallet' as const, walletId: '0912345678', walletName: 'B', personalId: null };
const admin = { keyId: 'k-admin-2', name: 'admin two' };
const heldFailure = (holdId: string) =>
  ApplicationFailure.nonRetryable('wallet disbursements are held', HELD, {
    holdId,
    kind: 'wallet_disbursement',
  });

async function heldPayout(holdId: string, more: Fakes = {}) {
  const disbursementId = h.id('d-held');
  let sends = 0;
  const input: DisbursementInput = {
    disbursementId,
    amount: 250_000,
    description: 'payout',
    receiver: wallet,
    gatewayAttemptTimeout: '1 minute',
    resultWait: '1 day',
  };
  const fakes: Fakes = {
    recordDisbursement: ok,
    admitDecision,
    recordHeldItem: async () => ({ holdNotEnded: true }),
    holdStillOn: async () => true,
    markHeldItemReleased: ok,
    // The real activity's contract: held on a first attempt before anything is sent, unless resumed.
    disburse: async (given) => {
      if (given.releasedHold !== holdId) throw heldFailure(holdId);
      sends += 1;
      return { outcome: 'succeeded' as const, resultCode: 0, message: 'paid', transId: 't1', recorded: true };
    },
    ...more,
  };
  const run = await h.start(disbursement, {
    workflowId: disbursementWorkflowId(disbursementId),
    args: [input],
    fakes,
  });
  return { run, disbursementId, sends: () => sends };
}

describe('a payout whose kind is held', () => {
  it('waits without sending, refuses a forged release, and pays once after a proved one', async () => {
    const holdId = h.id('hold');
    const { run, disbursementId, sends } = await heldPayout(holdId);

    const recorded = await run.reached('recordHeldItem');
    expect(recorded.input).toEqual({
      holdId,
      kind: 'wallet_disbursement',
      workflowId: run.workflowId,
      objectId: disbursementId,
      amountVnd: 250_000,
    });
    await run.blocked();
    expect(sends()).toBe(0);
    const { currentDetails } = (await run.handle.query('__temporal_workflow_metadata')) as {
      currentDetails: string;
    };
    expect(currentDetails).toMatch(new RegExp(`^Held: wallet_disbursement hold ${holdId} since `));

    // Forged: signed with another key; and a real proof made for another hold.
    const forged = decisionSigner('not-the-api-key')({
      subject: holdProofSubject(holdId),
      action: 'release',
      by: admin,
    });
    await run.handle.signal(holdReleasedSignal, { holdId, by: admin, proof: forged });
    const otherHold = sign({ subject: holdProofSubject(`${holdId}-other`), action: 'release', by: admin });
    await run.handle.signal(holdReleasedSignal, { holdId, by: admin, proof: otherHold });
    await run.reached('admitDecision', 2);
    await run.blocked();
    expect(refused.slice(-2)).toEqual(['wrong_signature', 'other_subject']);
    expect(sends()).toBe(0);
    expect(run.calls('markHeldItemReleased')).toEqual([]);

    const proof = sign({ subject: holdProofSubject(holdId), action: 'release', by: admin });
    await run.handle.signal(holdReleasedSignal, { holdId, by: admin, proof });
    expect(await run.result()).toEqual({ status: 'succeeded', resultCode: 0, message: 'paid' });
    expect(sends()).toBe(1);
    expect(run.names().filter((name) => name === 'disburse')).toHaveLength(2);
    expect(run.inputs('markHeldItemReleased')).toEqual([{ holdId, workflowId: run.workflowId }]);
    await captureHistory(h.env.client, run.workflowId, 'held-forged-release-refused-then-released');
  });

  it('a signal without proof is refused; the backstop resumes it once the hold has ended', async () => {
    const holdId = h.id('hold');
    const { run, sends } = await heldPayout(holdId, { holdStillOn: async () => false });
    await run.reached('recordHeldItem');
    await run.handle.signal(holdReleasedSignal, { holdId, by: admin, proof: null });
    await run.reached('admitDecision');
    expect(refused.at(-1)).toBe('missing');
    expect(sends()).toBe(0);
    // The test server skips the backstop's wait while the result is awaited.
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    expect(sends()).toBe(1);
    const [held] = run.calls('recordHeldItem');
    const [asked] = run.calls('holdStillOn');
    expect(run.gap(held!, asked!)).toBeGreaterThanOrEqual(15 * 60_000);
  });
});

describe('a refund whose kind is held', () => {
  it('is counted at the amount its activity read, and refunds once after the release', async () => {
    const holdId = h.id('hold');
    const refundId = h.id('rf');
    const sent: string[] = [];
    const run = await h.start(refund, {
      workflowId: refundWorkflowId(refundId),
      args: [
        {
          refundId,
          timing: {
            gatewayAttemptTimeout: '1 minute',
            firstCheck: '1 minute',
            maxInterval: '4 minutes',
            giveUpAfter: '20 minutes',
          },
        },
      ],
      fakes: {
        admitDecision,
        recordHeldItem: async () => ({ holdNotEnded: true }),
        holdStillOn: async () => true,
        markHeldItemReleased: ok,
        createRefund: async ({ releasedHold }) => {
          if (releasedHold !== holdId)
            throw ApplicationFailure.nonRetryable('refunds are held', HELD, {
              holdId,
              kind: 'refund',
              amountVnd: 90_000,
            });
          sent.push(refundId);
          return { status: 'succeeded' as const, resultCode: 0, message: 'refunded' };
        },
      },
    });
    const held = await run.reached('recordHeldItem');
    expect(held.input).toMatchObject({ holdId, kind: 'refund', objectId: refundId, amountVnd: 90_000 });
    await run.blocked();
    expect(sent).toEqual([]);
    const proof = sign({ subject: holdProofSubject(holdId), action: 'release', by: admin });
    await run.handle.signal(holdReleasedSignal, { holdId, by: admin, proof });
    expect(await run.result()).toMatchObject({ status: 'succeeded' });
    expect(sent).toEqual([refundId]);
  });
});

describe('the release workflow', () => {
  it('signals each held item with the proof at the chosen rate, then ends the hold', async () => {
    const holdId = h.id('hold');
    const items = Array.from({ length: 5 }, (_, i) => ({
      id: String(i + 1),
      workflowId: `disbursement/${holdId}-${i}`,
      heldAt: new Date(Date.UTC(2026, 10, 26, 4, 0, i)).toISOString(),
    }));
    const proof = sign({ subject: holdProofSubject(holdId), action: 'release', by: admin });
    const input: HoldReleaseInput = { holdId, kind: 'charge', ratePerMinute: 2, by: admin, proof };
    const run = await h.start(holdRelease, {
      workflowId: holdReleaseWorkflowId(holdId),
      args: [input],
      fakes: {
        listHeldItems: async ({ after }) => ({
          items: after ? [] : items,
        }),
        finishHoldRelease: ok,
      },
    });
    expect(await run.result()).toEqual({ signalled: 5 });
    expect(run.names()).toEqual(['listHeldItems', 'listHeldItems', 'finishHoldRelease']);
    // 2 a minute: one item every 30 s, so the second page is asked for 5 × 30 s after the first.
    const [first, second] = run.calls('listHeldItems');
    expect(run.gap(first!, second!)).toBeGreaterThanOrEqual(150_000);
    expect(run.inputs('listHeldItems')[1]!.after).toEqual({ heldAt: items[4]!.heldAt, id: '5' });
    const events = await run.events();
    expect(events.filter((event) => event === 'signalExternalWorkflowExecutionInitiated')).toHaveLength(5);
    await captureHistory(h.env.client, run.workflowId, 'five-items-at-two-a-minute');
  });
});

describe("the activities' check", () => {
  const heldDb = (() => ({
    whereIn: () => ({ select: async () => [{ kind: 'wallet_disbursement', hold_id: 'hold-1' }] }),
  })) as unknown as Db;
  const check = (attempt: number, releasedHold?: string) =>
    new MockActivityEnvironment({ attempt }).run(() =>
      stopIfHeld(heldDb, 'wallet_disbursement', releasedHold),
    );

  it('stops a first attempt with `held`, before anything is sent', async () => {
    await expect(check(1)).rejects.toMatchObject({
      type: HELD,
      nonRetryable: true,
      details: [{ holdId: 'hold-1', kind: 'wallet_disbursement' }],
    });
  });

  it('lets a retry go on: it may be a call already sent, in the middle of its call', async () => {
    await expect(check(2)).resolves.toBeUndefined();
  });

  it('lets the step its release resumed go on', async () => {
    await expect(check(1, 'hold-1')).resolves.toBeUndefined();
  });
});
