/**
 * Deterministic customers of documents 1 and 2: the LAST FOUR DIGITS of the amount pick what the
 * customer (or their bank) does, and the partnerClientId can name a customer whose funds are short.
 * The table is rendered in sandbox/README.md; keep the two in step.
 */
export type MoneyOutcome =
  | { readonly kind: 'success' }
  | { readonly kind: 'refuse'; readonly code: number }
  | { readonly kind: 'pending'; readonly code: 7000 | 7002 };

export type CustomerOutcome =
  | MoneyOutcome
  /** Token payments only: the provider wants the customer (8000) or a two-factor code (8200). */
  | { readonly kind: 'redirect' }
  | { readonly kind: 'two-factor' };

const lastFour = (amount: number) => String(amount).padStart(4, '0').slice(-4);

const PAYMENT_ROWS: Readonly<Record<string, { outcome: MoneyOutcome; description: string }>> = {
  '1001': { outcome: { kind: 'refuse', code: 1001 }, description: 'customer funds insufficient → 1001' },
  '7000': {
    outcome: { kind: 'pending', code: 7000 },
    description: 'IPN 7000 first, final 0 after pendingSettleMs',
  },
  '7002': {
    outcome: { kind: 'pending', code: 7002 },
    description: 'IPN 7002 first, final 0 after pendingSettleMs',
  },
};

const TOKEN_ROWS: Readonly<Record<string, { outcome: CustomerOutcome; description: string }>> = {
  ...PAYMENT_ROWS,
  '8000': { outcome: { kind: 'redirect' }, description: 'token pay answers 8000 (payUrl); approval → IPN' },
  '8200': { outcome: { kind: 'two-factor' }, description: 'token pay answers 8200; OTP in the inbox' },
};

/** What happens when the customer approves a payment of `amount` (api/create, POS, terminal, binding). */
export function paymentScenario(amount: number): MoneyOutcome {
  return PAYMENT_ROWS[lastFour(amount)]?.outcome ?? { kind: 'success' };
}

/** tokenization/pay and subscription/pay: the payment scenarios plus 8000 and 8200. */
export function tokenPaymentScenario(amount: number): CustomerOutcome {
  return TOKEN_ROWS[lastFour(amount)]?.outcome ?? { kind: 'success' };
}

/** Refunds: a refund amount ending 1002 is refused by the issuer; a transGroup item ending 7002 stays pending. */
export const REFUND_REFUSED_SUFFIX = '1002';
export const REFUND_ITEM_PENDING_SUFFIX = '7002';
export const endsWith = (amount: number, suffix: string) => lastFour(amount) === suffix;

/** A partnerClientId containing this (any case) is a customer with no funds (1001 on every charge). */
export const POOR_CUSTOMER_MARKER = 'poor';

/** `n<NNN>_<partnerClientId>`: the NNN-th wallet of the same user (document 2, multiple wallets). */
export function userOf(partnerClientId: string): { user: string; linkNumber: number } {
  const match = /^n(\d{3})_(.+)$/.exec(partnerClientId);
  return match ? { user: match[2]!, linkNumber: Number(match[1]) } : { user: partnerClientId, linkNumber: 0 };
}

export function amountScenarioTable(): { lastFour: string; applies: string; description: string }[] {
  return [
    ...Object.entries(PAYMENT_ROWS).map(([digits, row]) => ({
      lastFour: digits,
      applies: 'payments, POS, terminal, binding/subscription first payment, token and subscription pay',
      description: row.description,
    })),
    { lastFour: '8000', applies: 'tokenization/pay', description: TOKEN_ROWS['8000']!.description },
    { lastFour: '8200', applies: 'tokenization/pay', description: TOKEN_ROWS['8200']!.description },
    { lastFour: '1006', applies: 'autoApprove', description: 'the simulated customer declines → 1006' },
    { lastFour: REFUND_REFUSED_SUFFIX, applies: 'refund amount', description: 'refund refused → 1002' },
    {
      lastFour: REFUND_ITEM_PENDING_SUFFIX,
      applies: 'refund transGroup item amount',
      description: 'that item stays 7002, settles after pendingSettleMs',
    },
  ];
}
