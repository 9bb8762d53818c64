import type { ForeignCurrency } from './options';
import type { Random } from './random';

/** Plausible VND rates (mid-2020s) around which each sandbox seeds its fixed quotes. */
export const REFERENCE_RATES: Readonly<Record<ForeignCurrency, number>> = {
  USD: 25_400,
  EUR: 27_500,
  AUD: 16_700,
  CAD: 18_600,
  GBP: 32_100,
  JPY: 170,
  KRW: 19,
  TWD: 790,
  THB: 700,
};

export type ExchangeRates = Readonly<Record<ForeignCurrency, number>>;

/** Rates fixed for the sandbox's lifetime: reference ±0.5%, drawn from the seed. */
export function seededRates(random: Random): ExchangeRates {
  const rates = {} as Record<ForeignCurrency, number>;
  for (const [currency, reference] of Object.entries(REFERENCE_RATES) as [ForeignCurrency, number][]) {
    const jitter = 1 + (random.next() - 0.5) * 0.01;
    rates[currency] = Math.max(1, Math.round(reference * jitter));
  }
  return rates;
}
