/**
 * Decisions that move money carry a proof that only the API can make (DESIGN.md decision 14).
 *
 * Anyone who can reach the Temporal frontend can send a workflow an update or a signal, encrypted or not.
 * So a decision (approve, reject, release…) reaches a workflow with a `DecisionProof`: an HMAC-SHA256, under
 * DECISION_SIGNING_KEY, over the decision's subject (the workflow id), its action, who took it, its note,
 * when the API issued it and a nonce. The API holds the key and signs; the workers hold it and verify; a
 * workflow has no key (it is deterministic code), so it asks an activity and acts only on "admitted".
 *
 * The module, for any workflow that takes a money decision:
 * - here (pure, any layer): `DecisionClaim` (what is signed), `DecisionProof` (what travels beside the
 *   decision), `decisionProofText` (the exact bytes signed), `DecisionAdmission` / `DecisionRefusal` (the
 *   verifier's answer), `DecisionActivities` (the activity a workflow calls), `DECISION_REFUSED` (the failure
 *   type a refused decision ends its update with);
 * - `api/http/decision-signer.ts`: `decisionSigner(key)` → `sign({ subject, action, by, note })`, stamping the
 *   time and a fresh nonce; the API's use case sends the proof with the decision;
 * - `activities/shared/decision-proofs.ts`: `checkDecisionProof(key, claim, proof, now)` (pure verification)
 *   and the `admitDecision` activity, which verifies and writes every refusal to the audit log;
 * - `workflows/shared/decision-gate.ts`: `decisionGate(subject, target)` → `admit(decision, proof)` for an
 *   update handler: refuses a proof seen before in this workflow, asks `admitDecision`, remembers refusals
 *   (for a query) and throws `ApplicationFailure(DECISION_REFUSED)` when refused, so the workflow does not act.
 *
 * A proof names its subject, so a proof for another workflow is refused; its nonce is used once per workflow;
 * it is accepted for `DECISION_PROOF_MAX_AGE_MS` after it was issued (a proof cannot be saved for later).
 */

/** Who took a decision, as the API authenticated them (the key and the person it belongs to). */
export interface DecisionMaker {
  keyId: string;
  name: string;
}

/** What the API signs. */
export interface DecisionClaim {
  /** The workflow id the decision is for: a proof for one run is worthless for another. */
  subject: string;
  /** The decision, as the workflow names it ('approve', 'reject', 'release'…). */
  action: string;
  by: DecisionMaker;
  note?: string;
  /** ISO time the API issued the proof. */
  issuedAt: string;
  /** 128 random bits, base64url: one proof, one use. */
  nonce: string;
}

/** Travels beside the decision in the update's (or signal's) argument. */
export interface DecisionProof {
  version: 1;
  subject: string;
  issuedAt: string;
  nonce: string;
  /** HMAC-SHA256 of `decisionProofText(claim)`, base64url. */
  signature: string;
}

/** How long after its issue a proof is accepted, and how far ahead of a worker's clock it may be. */
export const DECISION_PROOF_MAX_AGE_MS = 10 * 60_000;
export const DECISION_PROOF_CLOCK_SKEW_MS = 60_000;

/**
 * The exact text signed: a JSON array in a fixed order (unambiguous, whatever the fields hold), prefixed by
 * the purpose so a signature made with the same key for anything else never passes as a decision's.
 */
export function decisionProofText(claim: DecisionClaim): string {
  return JSON.stringify([
    'payrun decision proof v1',
    claim.subject,
    claim.action,
    claim.by.keyId,
    claim.by.name,
    claim.note ?? '',
    claim.issuedAt,
    claim.nonce,
  ]);
}

export type DecisionRefusal =
  /** No proof came with the decision. */
  | 'missing'
  /** The proof is not of the shape above. */
  | 'malformed'
  /** The proof was made for another workflow. */
  | 'other_subject'
  /** The signature does not match (another key, or a decision changed after signing). */
  | 'wrong_signature'
  /** Issued too long ago, or in the future. */
  | 'stale'
  /** This workflow saw this proof before. */
  | 'replayed'
  /** Signed for a `system:` subject (contracts/shared/system-decisions.ts) that may not take this action. */
  | 'system_not_allowed';

export type DecisionAdmission =
  { admitted: true } | { admitted: false; reason: DecisionRefusal; message: string };

/** A refused decision as the workflow remembers it (a query shows them). */
export interface RefusedDecision {
  action: string;
  by: DecisionMaker;
  reason: DecisionRefusal;
  at: string;
}

/** The failure type (a catalogue code) of an update refused for its proof. */
export const DECISION_REFUSED = 'decision_refused';

export interface AdmitDecisionInput {
  /** The workflow's own id: the subject its proofs must name. */
  subject: string;
  /** What the audit log names as the target: e.g. `payout_run` and the run id. */
  target: { type: string; id: string };
  decision: { action: string; by: DecisionMaker; note?: string };
  /** As it arrived: anything, or nothing. */
  proof: unknown;
  /** The workflow saw this proof's nonce before: refused without checking the signature. */
  replayed: boolean;
  /**
   * How long after its issue the proof counts; DECISION_PROOF_MAX_AGE_MS when absent. Set by workflow code,
   * never by the sender: a hold's release is carried to its items for as long as the release takes.
   */
  maxAgeMs?: number;
}

export interface DecisionActivities {
  /** Verifies a decision's proof; a refusal is written to the audit log before it is answered. */
  admitDecision(input: AdmitDecisionInput): Promise<DecisionAdmission>;
}
