/**
 * The workers' side of decision proofs (contracts/shared/decision-proof.ts): the verification, and the
 * activity a workflow awaits before it acts on a decision. Every refusal is written to the audit log, with
 * who the decision claimed to come from and why it was refused, before the workflow is answered.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { recordAudit } from '../../db/shared/audit-log';
import type { Db } from '../../db/shared/knex';
import {
  DECISION_PROOF_CLOCK_SKEW_MS,
  DECISION_PROOF_MAX_AGE_MS,
  DECISION_REFUSED,
  decisionProofText,
  type AdmitDecisionInput,
  type DecisionActivities,
  type DecisionAdmission,
  type DecisionClaim,
  type DecisionProof,
  type DecisionRefusal,
  isSystemSubject,
  systemMayDecide,
} from '../../contracts/shared';
import { bindActivities } from './bind';

export interface DecisionProofDeps {
  db: Db;
  /** DECISION_SIGNING_KEY: the API signs decisions with it. */
  decisionKey: string;
  now?: () => number;
}

const WHY: Record<DecisionRefusal, string> = {
  missing: 'it carries no proof from the API',
  malformed: 'its proof is not one the API makes',
  other_subject: 'its proof was made for another workflow',
  wrong_signature: 'its proof is not signed with the API’s key for this decision',
  stale: 'its proof is too old (or from the future)',
  replayed: 'its proof was used before',
  system_not_allowed: 'payrun itself may not take this decision, only a person',
};

function isProof(value: unknown): value is DecisionProof {
  const proof = value as Partial<DecisionProof> | null;
  return (
    typeof proof === 'object' &&
    proof !== null &&
    proof.version === 1 &&
    [proof.subject, proof.issuedAt, proof.nonce, proof.signature].every(
      (field) => typeof field === 'string' && field.length > 0 && field.length <= 512,
    )
  );
}

/** Whether `proof` is the API's for exactly this decision: undefined when it is, else why not. */
export function checkDecisionProof(
  key: string,
  decision: Omit<DecisionClaim, 'issuedAt' | 'nonce'>,
  proof: unknown,
  now: number,
  maxAgeMs = DECISION_PROOF_MAX_AGE_MS,
): DecisionRefusal | undefined {
  if (proof === undefined || proof === null) return 'missing';
  if (!isProof(proof)) return 'malformed';
  if (proof.subject !== decision.subject) return 'other_subject';
  const expected = createHmac('sha256', key)
    .update(decisionProofText({ ...decision, issuedAt: proof.issuedAt, nonce: proof.nonce }), 'utf8')
    .digest();
  const given = Buffer.from(proof.signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'wrong_signature';
  const issued = Date.parse(proof.issuedAt);
  if (!(now - issued <= maxAgeMs && issued - now <= DECISION_PROOF_CLOCK_SKEW_MS)) return 'stale';
  return undefined;
}

/** Why a decision is refused, or undefined when it is admitted: pure, so the rules are tested alone. */
export function decisionRefusal(
  key: string,
  input: AdmitDecisionInput,
  now: number,
): DecisionRefusal | undefined {
  const { subject, decision, proof } = input;
  if (input.replayed) return 'replayed';
  // Checked before the signature: a system subject is only trusted for what it is listed for.
  if (isSystemSubject(decision.by) && !systemMayDecide(decision.by.keyId, decision.action))
    return 'system_not_allowed';
  return checkDecisionProof(key, { subject, ...decision }, proof, now, input.maxAgeMs);
}

export async function admitDecision(
  deps: DecisionProofDeps,
  input: AdmitDecisionInput,
): Promise<DecisionAdmission> {
  const { subject, decision } = input;
  const reason = decisionRefusal(deps.decisionKey, input, (deps.now ?? Date.now)());
  if (!reason) return { admitted: true };
  const message = `A decision to ${decision.action} ${subject} was refused: ${WHY[reason]}. Decisions come only from the payrun API.`;
  await recordAudit(deps.db, {
    // Whoever sent it is unknown: the person the decision names is only a claim, kept in the details.
    actorKeyId: null,
    actorName: 'unverified decision',
    action: `${input.target.type}.${decision.action}`,
    targetType: input.target.type,
    targetId: input.target.id,
    outcome: 'refused',
    errorCode: DECISION_REFUSED,
    details: { reason, workflowId: subject, claimedBy: decision.by ?? null, note: decision.note ?? null },
  });
  return { admitted: false, reason, message };
}

export const createDecisionActivities = (deps: DecisionProofDeps): DecisionActivities =>
  bindActivities(deps, { admitDecision });
