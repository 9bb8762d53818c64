import { CURRENCIES, type Currency } from './options';

/**
 * Merchant balances. Kept in minor units (hundredths for foreign currencies, đồng for VND) so that
 * repeated conversions and debits never accumulate floating-point error; the API speaks major units.
 */
export interface Balances {
  get(currency: Currency): number;
  set(currency: Currency, amount: number): void;
  canDebit(currency: Currency, amount: number): boolean;
  debit(currency: Currency, amount: number): void;
  credit(currency: Currency, amount: number): void;
  all(): Record<Currency, number>;
}

const scale = (currency: Currency) => (currency === 'VND' ? 1 : 100);
const toMinor = (currency: Currency, amount: number) => Math.round(amount * scale(currency));
const toMajor = (currency: Currency, minor: number) => minor / scale(currency);

export function createBalances(initial: Readonly<Record<Currency, number>>): Balances {
  const minor = new Map<Currency, number>(CURRENCIES.map((c) => [c, toMinor(c, initial[c])]));
  const current = (currency: Currency) => minor.get(currency) ?? 0;
  return {
    get: (currency) => toMajor(currency, current(currency)),
    set: (currency, amount) => void minor.set(currency, toMinor(currency, amount)),
    canDebit: (currency, amount) => current(currency) >= toMinor(currency, amount),
    debit: (currency, amount) => void minor.set(currency, current(currency) - toMinor(currency, amount)),
    credit: (currency, amount) => void minor.set(currency, current(currency) + toMinor(currency, amount)),
    all: () =>
      Object.fromEntries(CURRENCIES.map((c) => [c, toMajor(c, current(c))])) as Record<Currency, number>,
  };
}
