/**
 * The payee directory (issue 36): receivers saved once, their wallet checked through the gateway when saved,
 * changed only with a second person, and named from a payout file by `payee_id`. Pure code: the workflow,
 * the activities, db/ and the API share it.
 */

/** Where a payee is paid. A bank payee is paid by single disbursement only: a batch pays wallets. */
export type PayeeKind = 'wallet' | 'bank';

export interface WalletDetails {
  walletId: string;
  /** The national id the gateway may check the wallet against; null when it need not be. */
  personalId: string | null;
}

export interface BankDetails {
  bankCode: string;
  bankAccountNo?: string;
  bankCardNo?: string;
}

/** Everything that says who a payee is and where the money goes; a change replaces all of it. */
export interface PayeeDetails {
  name: string;
  wallet?: WalletDetails;
  bank?: BankDetails;
  reference: string | null;
}

/**
 * What the gateway's wallet check said of the name. `match`: the wallet took the name as given or in the
 * plain capital letters wallets register names in; `mismatch`: it refused both (4003); `unchecked`: nothing
 * to check it with (a bank payee: document 3 has no bank account check) or the wallet could not be checked.
 */
export type NameCheck = 'match' | 'mismatch' | 'unchecked';

export interface WalletCheckOutcome {
  nameCheck: NameCheck;
  /** The name the wallet accepted; null unless it matched. Shown masked, as the API masks names. */
  registeredName: string | null;
  resultCode: number | null;
  message: string | null;
}

export type PayeeStatus = 'active' | 'archived';
export type PayeeChangeStatus = 'proposed' | 'approved' | 'rejected';
export type PayeeChangeAction = 'update' | 'archive';

/**
 * How a payout row's receiver stands in the directory, for the approver. `new`: no active payee has the
 * row's wallet; `changed`: its payee's details changed within PAYEE_CHANGED_WINDOW_DAYS; `known`: neither.
 */
export type PayeeFlag = 'known' | 'new' | 'changed';

/**
 * The name as wallets register it: accents and đ dropped, capitals, one space between words
 * (`Nguyễn Văn  An` → `NGUYEN VAN AN`). The second form a wallet check tries, so a name typed with its
 * accents matches the plain-letter name a wallet holds.
 */
export function plainCapitalName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[đĐ]/g, 'D')
    .replace(/\s+/gu, ' ')
    .trim()
    .toUpperCase();
}

/** A payee's id: `pe_` and 16 hex characters, made by the API. */
export const PAYEE_ID_PATTERN = /^pe_[0-9a-f]{16}$/;

/** The one-activity workflow that checks a wallet for the API (which holds no gateway credentials). */
export const payeeCheckWorkflowId = (checkId: string) => `payee-check/${checkId}`;

export interface PayeeCheckInput {
  walletId: string;
  name: string;
  personalId: string | null;
}

export interface PayeeActivities {
  checkPayeeWallet(input: PayeeCheckInput): Promise<WalletCheckOutcome>;
}
