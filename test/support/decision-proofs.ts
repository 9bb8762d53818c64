/**
 * Money decisions in workflow-layer tests: signed as the API signs them, and checked by the workers' real
 * verification with the test key (refusals are not written anywhere here).
 */
import { checkDecisionProof } from '../../activities/shared/decision-proofs';
import { decisionSigner } from '../../api/http/decision-signer';
import type { AdmitDecisionInput, DecisionAdmission } from '../../contracts/shared';
import { TEST_DECISION_SIGNING_KEY } from './settings';

export const signTest = decisionSigner(TEST_DECISION_SIGNING_KEY);

/** The `admitDecision` activity, as a fake the harness can serve. */
export const admitDecision = async ({
  subject,
  decision,
  proof,
  replayed,
}: AdmitDecisionInput): Promise<DecisionAdmission> => {
  const reason = replayed
    ? 'replayed'
    : checkDecisionProof(TEST_DECISION_SIGNING_KEY, { subject, ...decision }, proof, Date.now());
  return reason ? { admitted: false, reason, message: `refused: ${reason}` } : { admitted: true };
};
