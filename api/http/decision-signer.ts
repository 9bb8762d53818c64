/**
 * The API's side of decision proofs (contracts/shared/decision-proof.ts): it alone holds DECISION_SIGNING_KEY
 * besides the workers, so only a decision that passed the API's authentication, roles and rules reaches a
 * workflow with a proof the workers admit.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { decisionProofText, type DecisionClaim, type DecisionProof } from '../../contracts/shared';

export type SignDecision = (decision: Omit<DecisionClaim, 'issuedAt' | 'nonce'>) => DecisionProof;

export function decisionSigner(key: string, now: () => number = Date.now): SignDecision {
  return (decision) => {
    const claim: DecisionClaim = {
      ...decision,
      issuedAt: new Date(now()).toISOString(),
      nonce: randomBytes(16).toString('base64url'),
    };
    return {
      version: 1,
      subject: claim.subject,
      issuedAt: claim.issuedAt,
      nonce: claim.nonce,
      signature: createHmac('sha256', key).update(decisionProofText(claim), 'utf8').digest('base64url'),
    };
  };
}
