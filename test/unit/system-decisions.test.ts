/**
 * The balance watcher's own resumes (PAYOUT_AUTO_RESUME_FUNDED) are signed with the decision key under the
 * `system:balance-watch` subject: the gate admits that subject for a resume and for nothing else, even with
 * a good signature, and a signature made for one run is worthless for another.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signSystemResume } from '../../activities/payouts/auto-resume';
import { decisionRefusal } from '../../activities/shared/decision-proofs';
import { BALANCE_WATCH_SUBJECT, decisionProofText, type DecisionProof } from '../../contracts/shared';

const key = 'k'.repeat(32);
const target = { type: 'payout_run', id: 'run-1' };
const subject = 'payout-run/run-1';

/** A proof with a good signature for any action, as a worker holding the key could make. */
function signedAs(action: string): DecisionProof {
  const claim = {
    subject,
    action,
    by: BALANCE_WATCH_SUBJECT,
    issuedAt: new Date().toISOString(),
    nonce: 'n1',
  };
  return {
    version: 1,
    subject,
    issuedAt: claim.issuedAt,
    nonce: claim.nonce,
    signature: createHmac('sha256', key).update(decisionProofText(claim), 'utf8').digest('base64url'),
  };
}

describe("the balance watcher's decisions", () => {
  it('a resume it signs is admitted for the run it names, and only that run', () => {
    const proof = signSystemResume(key, subject);
    const resume = { action: 'resume', by: BALANCE_WATCH_SUBJECT };
    expect(
      decisionRefusal(key, { subject, target, decision: resume, proof, replayed: false }, Date.now()),
    ).toBeUndefined();
    expect(
      decisionRefusal(
        key,
        { subject: 'payout-run/run-2', target, decision: resume, proof, replayed: false },
        Date.now(),
      ),
    ).toBe('other_subject');
    expect(
      decisionRefusal(
        'x'.repeat(32),
        { subject, target, decision: resume, proof, replayed: false },
        Date.now(),
      ),
    ).toBe('wrong_signature');
  });

  it.each(['approve', 'reject', 'cancel', 'release'])('may not %s, even with a good signature', (action) => {
    const decision = { action, by: BALANCE_WATCH_SUBJECT };
    expect(
      decisionRefusal(
        key,
        { subject, target, decision, proof: signedAs(action), replayed: false },
        Date.now(),
      ),
    ).toBe('system_not_allowed');
  });

  it('another system subject may decide nothing', () => {
    const decision = { action: 'resume', by: { keyId: 'system:other', name: 'other' } };
    expect(
      decisionRefusal(
        key,
        { subject, target, decision, proof: signedAs('resume'), replayed: false },
        Date.now(),
      ),
    ).toBe('system_not_allowed');
  });
});
