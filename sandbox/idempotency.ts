import { createHash } from 'node:crypto';
import type { OperationName } from '../gateway';

/**
 * requestId memory. A requestId seen again with the same content gets the stored answer of the
 * finished request, or "still in progress" (40) while the first is being processed; with different
 * content it is a duplicate (40). Content is compared after decryption, because RSA PKCS#1 v1.5
 * ciphertexts differ on every encryption of the same receiver.
 */
export interface StoredAnswer {
  status: number;
  body: Record<string, unknown>;
}

export type Claim =
  | { kind: 'new' }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'in-progress' }
  | { kind: 'conflict'; operation: OperationName };

export interface Idempotency {
  claim(requestId: string, operation: OperationName, plaintext: Readonly<Record<string, unknown>>): Claim;
  finish(requestId: string, answer: StoredAnswer): void;
  /** Forget a claim: nothing was processed (fault, transient 10), so the same requestId may come again. */
  release(requestId: string): void;
}

type RequestRecord = { operation: OperationName; fingerprint: string; answer?: StoredAnswer };

export function createIdempotency(): Idempotency {
  const records = new Map<string, RequestRecord>();
  return {
    claim(requestId, operation, plaintext) {
      const fingerprint = fingerprintOf(operation, plaintext);
      const existing = records.get(requestId);
      if (!existing) {
        records.set(requestId, { operation, fingerprint });
        return { kind: 'new' };
      }
      if (existing.fingerprint !== fingerprint) return { kind: 'conflict', operation: existing.operation };
      return existing.answer ? { kind: 'replay', answer: existing.answer } : { kind: 'in-progress' };
    },
    finish(requestId, answer) {
      const existing = records.get(requestId);
      if (existing) existing.answer = answer;
    },
    release: (requestId) => void records.delete(requestId),
  };
}

function fingerprintOf(operation: OperationName, plaintext: Readonly<Record<string, unknown>>): string {
  const { signature: _signature, ...content } = plaintext;
  return createHash('sha256').update(operation).update(JSON.stringify(content)).digest('hex');
}
