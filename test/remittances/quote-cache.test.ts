import { describe, expect, it } from 'vitest';
import { createQuoteCache } from '../../api/remittances/quote-cache';

describe('quote cache', () => {
  it('serves one fetched rate to concurrent and later readers until it ages, then fetches again', async () => {
    let clock = 1_000_000;
    const fetched: string[] = [];
    const quotes = createQuoteCache<'USD' | 'EUR'>({
      lifetimeMs: 10_000,
      now: () => clock,
      fetchRate: async (currency) => {
        fetched.push(currency);
        return currency === 'USD' ? 25_000 + fetched.length : 27_000;
      },
    });
    const burst = await Promise.all(Array.from({ length: 200 }, () => quotes('USD')));
    expect(fetched).toEqual(['USD']);
    expect(new Set(burst.map((quote) => quote.rate))).toEqual(new Set([25_001]));
    clock += 9_999;
    expect((await quotes('USD')).rate).toBe(25_001);
    expect((await quotes('EUR')).rate).toBe(27_000);
    clock += 1;
    expect((await quotes('USD')).rate).toBe(25_003);
    expect(fetched).toEqual(['USD', 'EUR', 'USD']);
  });

  it('does not keep a failed fetch', async () => {
    let fail = true;
    const quotes = createQuoteCache<'USD'>({
      lifetimeMs: 60_000,
      fetchRate: async () => {
        if (fail) throw new Error('gateway down');
        return 25_000;
      },
    });
    await expect(quotes('USD')).rejects.toThrow('gateway down');
    fail = false;
    expect((await quotes('USD')).rate).toBe(25_000);
  });
});
