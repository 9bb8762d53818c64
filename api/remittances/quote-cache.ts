/**
 * Quotes for reading (`GET /v1/remittance-quotes`) come from a short-lived cache per base currency, so a
 * page that polls, or many viewers, cost one gateway call per currency per lifetime instead of a
 * workflow per GET. Concurrent misses share one fetch; a failed fetch is not kept. Remittances never use
 * this: each one quotes for itself when it buys.
 */
export interface CachedQuote {
  rate: number;
  quotedAt: Date;
}

export function createQuoteCache<K extends string>(options: {
  lifetimeMs: number;
  fetchRate(key: K): Promise<number>;
  now?: () => number;
}): (key: K) => Promise<CachedQuote> {
  const now = options.now ?? Date.now;
  const entries = new Map<K, { expiresAt: number; quote: Promise<CachedQuote> }>();
  return (key) => {
    const cached = entries.get(key);
    if (cached && cached.expiresAt > now()) return cached.quote;
    const quote = options.fetchRate(key).then((rate) => ({ rate, quotedAt: new Date(now()) }));
    const entry = { expiresAt: now() + options.lifetimeMs, quote };
    entries.set(key, entry);
    quote.catch(() => {
      if (entries.get(key) === entry) entries.delete(key);
    });
    return quote;
  };
}
