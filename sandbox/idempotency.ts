import type { OperationName } from '../gateway';

/**
 * requestId memory, as strict as the spec (document 1, Errors: "40 Duplicated requestId — not final —
 * retry with a different requestId"). A requestId the gateway has read is answered 40 ever after: while
 * the first request is being processed, once it is answered, and whatever content comes with it. Nothing
 * is ever replayed: a merchant that lost an answer learns the outcome by query or notification, never
 * from a second copy of the answer.
 *
 * The one way back is `release`: an answer that says nothing was done and asks for the same request again
 * (10 "retry after maintenance", a sandbox fault that never reached the gateway) forgets the requestId.
 */
export type Claim = { kind: 'new' } | { kind: 'duplicate'; operation: OperationName; answered: boolean };

export interface Idempotency {
  claim(requestId: string, operation: OperationName): Claim;
  /** The request was answered: its requestId stays taken. */
  finish(requestId: string): void;
  /** Forget a claim: nothing was processed, so the same requestId may come again. */
  release(requestId: string): void;
}

type RequestRecord = { operation: OperationName; answered: boolean };

export function createIdempotency(): Idempotency {
  const records = new Map<string, RequestRecord>();
  return {
    claim(requestId, operation) {
      const existing = records.get(requestId);
      if (!existing) {
        records.set(requestId, { operation, answered: false });
        return { kind: 'new' };
      }
      return { kind: 'duplicate', operation: existing.operation, answered: existing.answered };
    },
    finish(requestId) {
      const existing = records.get(requestId);
      if (existing) existing.answered = true;
    },
    release: (requestId) => void records.delete(requestId),
  };
}
