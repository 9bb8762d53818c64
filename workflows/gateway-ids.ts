/**
 * Interim: the ids payrun sends the gateway (replaced by the order-id namespace work). Pure.
 */
const REQUEST_ID_MAX = 50;

/** FNV-1a, 64 bits, as 16 hex characters: deterministic and pure (workflow code may call it). */
function hash16(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const char of text) {
    hash ^= BigInt(char.codePointAt(0)!);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

/** The requestId of one step of one order: the same on every attempt, ≤ 50 characters. */
export function requestIdFor(orderId: string, step: string): string {
  const plain = `${orderId}-${step}`;
  if (plain.length <= REQUEST_ID_MAX) return plain;
  const keep = REQUEST_ID_MAX - 1 - 16 - 1 - step.length;
  return `_${orderId.slice(0, Math.max(keep, 0))}${hash16(orderId)}-${step}`;
}

/** A lookup's id (fresh each time by its nonce): a requestId and an orderId at once, ≤ 50 characters. */
export function lookupIdFor(base: string, nonce: string): string {
  const suffix = `-q${nonce}`;
  return `${base.slice(0, REQUEST_ID_MAX - suffix.length).replace(/[-_.]+$/, '')}${suffix}`;
}
