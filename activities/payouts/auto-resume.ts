/**
 * Auto-resume (issue 36, PAYOUT_AUTO_RESUME_FUNDED): after a reading of the VND balance, the watcher resumes
 * the runs waiting for funds that the balance covers, oldest first, stopping at the first it cannot cover, so
 * the resumed runs together never ask for more than the balance holds and a younger run never overtakes an
 * older one.
 *
 * Why this cannot pay twice or lose money: a resume only lets a batch the gateway refused for want of funds
 * ask again, with the same orderId, which the gateway accepts once; a resume reaching a batch that is not
 * waiting does nothing. The resume is signed with DECISION_SIGNING_KEY for the `system:balance-watch`
 * subject, which the decision gate admits for `resume` only (contracts/shared/system-decisions.ts).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { recordAudit } from '../../db/shared/audit-log';
import type { Db } from '../../db/shared/knex';
import {
  BALANCE_WATCH_SUBJECT,
  decisionProofText,
  type DecisionClaim,
  type DecisionProof,
} from '../../contracts/shared';
import { resumeSignal } from '../../contracts/payouts';
import type { WaitingRun } from '../../db/payouts/balance-thresholds';

/** The oldest runs whose remaining amounts, added up, the balance covers. */
export function runsTheBalanceCovers(waiting: readonly WaitingRun[], balance: number): WaitingRun[] {
  const covered: WaitingRun[] = [];
  let committed = 0;
  for (const run of waiting) {
    if (committed + run.remaining > balance) break;
    committed += run.remaining;
    covered.push(run);
  }
  return covered;
}

/** The watcher's resume of one run's workflow, signed as the API signs a person's. */
export function signSystemResume(key: string, subject: string): DecisionProof {
  const claim: DecisionClaim = {
    subject,
    action: 'resume',
    by: BALANCE_WATCH_SUBJECT,
    issuedAt: new Date().toISOString(),
    nonce: randomBytes(16).toString('base64url'),
  };
  return {
    version: 1,
    subject,
    issuedAt: claim.issuedAt,
    nonce: claim.nonce,
    signature: createHmac('sha256', key).update(decisionProofText(claim), 'utf8').digest('base64url'),
  };
}

/**
 * Resumes what `balance` covers, one audit entry per resume, written once Temporal took the signal (a retry
 * after a failed write resumes again, which the batch ignores, and then writes it). Returns the runs resumed.
 */
export async function resumeFundedRuns(
  deps: { db: Db; decisionKey: string },
  waiting: readonly WaitingRun[],
  balance: number,
): Promise<string[]> {
  const covered = runsTheBalanceCovers(waiting, balance);
  const client = Context.current().client;
  const resumed: string[] = [];
  for (const run of covered) {
    const proof = signSystemResume(deps.decisionKey, run.workflowId);
    await client.workflow
      .getHandle(run.workflowId)
      .signal(resumeSignal, { by: BALANCE_WATCH_SUBJECT, proof });
    await recordAudit(deps.db, {
      actorKeyId: BALANCE_WATCH_SUBJECT.keyId,
      actorName: BALANCE_WATCH_SUBJECT.name,
      action: 'payout_run.resume',
      targetType: 'payout_run',
      targetId: run.runId,
      outcome: 'succeeded',
      details: {
        automatic: true,
        balance,
        remaining: run.remaining,
        waitingRuns: waiting.length,
      },
    });
    resumed.push(run.runId);
  }
  return resumed;
}
