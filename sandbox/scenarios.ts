/**
 * Deterministic customers and receivers: the LAST FOUR DIGITS of a wallet id (phone number) or of a
 * bank account/card number pick the outcome, so a test or a demo gets the same result every time.
 * The table is rendered in sandbox/README.md; keep the two in step.
 */

/** What happens when money is sent to the receiver (single pay, remittance, batch payment step). */
export type PaymentOutcome =
  | { readonly kind: 'success' }
  | { readonly kind: 'reject'; readonly code: number }
  | { readonly kind: 'pending'; readonly code: 7000 | 7002; readonly finalCode: number };

export interface Scenario {
  readonly lastFour: string;
  /** Answer of checkWallet (disbursement/remittance verify). */
  readonly checkWallet: number;
  /** Refused at batch creation (INELIGIBLE) with this code; a single pay is refused with it too. */
  readonly ineligible?: number;
  readonly payment: PaymentOutcome;
  /** First attempt of each requestId answers 10 (server connection error); the retry goes through. */
  readonly transientFirstAttempt: boolean;
  readonly description: string;
}

const success: PaymentOutcome = { kind: 'success' };
const reject = (code: number): PaymentOutcome => ({ kind: 'reject', code });
const pending = (code: 7000 | 7002, finalCode: number): PaymentOutcome => ({
  kind: 'pending',
  code,
  finalCode,
});

/** Final code of a pending payout that fails at the provider ("7099" receivers). */
export const PENDING_FAILURE_CODE = 99;

type Row = Omit<Scenario, 'lastFour' | 'transientFirstAttempt'> & { transientFirstAttempt?: boolean };

const WALLET_ROWS: Readonly<Record<string, Row>> = {
  '1007': { checkWallet: 1007, ineligible: 1007, payment: reject(1007), description: 'inactive account' },
  '1008': { checkWallet: 0, payment: reject(1008), description: 'receiving limit exceeded' },
  '4001': { checkWallet: 4001, ineligible: 4001, payment: reject(4001), description: 'account restricted' },
  '4002': { checkWallet: 0, ineligible: 4002, payment: reject(4002), description: 'not C06-verified' },
  '4003': {
    checkWallet: 4003,
    ineligible: 4003,
    payment: reject(4003),
    description: 'receiver info invalid',
  },
  '7000': { checkWallet: 0, payment: pending(7000, 0), description: 'pending 7000, then success' },
  '7002': { checkWallet: 0, payment: pending(7002, 0), description: 'pending 7002, then success' },
  '7099': {
    checkWallet: 0,
    payment: pending(7000, PENDING_FAILURE_CODE),
    description: `pending 7000, then failure ${PENDING_FAILURE_CODE}`,
  },
  '0010': {
    checkWallet: 0,
    payment: success,
    transientFirstAttempt: true,
    description: 'first attempt of a requestId answers 10; the retry (same requestId) succeeds',
  },
};

const BANK_ROWS: Readonly<Record<string, Row>> = {
  '1507': { checkWallet: 0, payment: reject(1507), description: 'bank account/card or bank code unknown' },
  '7000': WALLET_ROWS['7000']!,
  '7002': WALLET_ROWS['7002']!,
  '7099': WALLET_ROWS['7099']!,
  '0010': WALLET_ROWS['0010']!,
};

const DEFAULT_ROW: Row = { checkWallet: 0, payment: success, description: 'success' };

function lookup(rows: Readonly<Record<string, Row>>, number: string): Scenario {
  const lastFour = number.replace(/\D/g, '').slice(-4);
  const row = rows[lastFour] ?? DEFAULT_ROW;
  return { lastFour, ...row, transientFirstAttempt: row.transientFirstAttempt ?? false };
}

export const walletScenario = (walletId: string): Scenario => lookup(WALLET_ROWS, walletId);
export const bankScenario = (accountOrCardNo: string): Scenario => lookup(BANK_ROWS, accountOrCardNo);

/** The outcome of a single payout to this receiver, ineligibility included. */
export function singlePaymentOutcome(scenario: Scenario): PaymentOutcome {
  return scenario.ineligible === undefined ? scenario.payment : reject(scenario.ineligible);
}

/** For the admin API and README: the scenario table as data. */
export function scenarioTable(): { receiver: 'wallet' | 'bank'; lastFour: string; description: string }[] {
  return [
    ...Object.entries(WALLET_ROWS).map(([lastFour, row]) => ({
      receiver: 'wallet' as const,
      lastFour,
      description: row.description,
    })),
    ...Object.entries(BANK_ROWS).map(([lastFour, row]) => ({
      receiver: 'bank' as const,
      lastFour,
      description: row.description,
    })),
  ];
}
