import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import {
  DECISION_REFUSED,
  type DecisionActivities,
  type DecisionMaker,
  type RefusedDecision,
} from '../../contracts/shared';
import { RECORDS } from './activity-profiles';

const { admitDecision } = proxyActivities<DecisionActivities>(RECORDS);

export interface DecisionGate {
  /**
   * Resolves when the decision's proof is the API's, fresh, for this workflow and not seen before here;
   * otherwise the refusal is in the audit log and this throws `decision_refused`, ending the update.
   */
  admit(decision: { action: string; by: DecisionMaker; note?: string }, proof: unknown): Promise<void>;
  /**
   * The same check for a signal, which has no caller to answer: true when admitted, false when refused (the
   * refusal is in the audit log and in `refused`), so the handler simply does not act.
   */
  admits(decision: { action: string; by: DecisionMaker }, proof: unknown): Promise<boolean>;
  readonly refused: readonly RefusedDecision[];
}

/**
 * The gate of one workflow's money decisions (contracts/shared/decision-proof.ts tells the whole design).
 * `options.subject`: a decision signed for something other than this workflow (a payout batch takes its
 * run's resume; a hold's release is carried to every item it held); `options.maxAgeMs`: how long such a
 * proof is carried.
 */
export function decisionGate(
  target: { type: string; id: string },
  options: { subject?: string; maxAgeMs?: number } = {},
): DecisionGate {
  const subject = options.subject ?? workflowInfo().workflowId;
  const seenNonces = new Set<string>();
  const refused: RefusedDecision[] = [];
  const gate: DecisionGate = {
    refused,
    admits: (decision, proof) =>
      gate.admit(decision, proof).then(
        () => true,
        () => false,
      ),
    async admit(decision, proof) {
      const nonce = nonceOf(proof);
      const replayed = nonce !== undefined && seenNonces.has(nonce);
      if (nonce !== undefined) seenNonces.add(nonce);
      const answer = await admitDecision({
        subject,
        target,
        decision,
        proof: proof ?? null,
        replayed,
        ...(options.maxAgeMs !== undefined && { maxAgeMs: options.maxAgeMs }),
      });
      if (answer.admitted) return;
      refused.push({
        action: decision.action,
        by: decision.by,
        reason: answer.reason,
        at: new Date().toISOString(),
      });
      throw ApplicationFailure.nonRetryable(answer.message, DECISION_REFUSED, { reason: answer.reason });
    },
  };
  return gate;
}

function nonceOf(proof: unknown): string | undefined {
  const nonce = (proof as { nonce?: unknown } | null | undefined)?.nonce;
  return typeof nonce === 'string' ? nonce : undefined;
}
