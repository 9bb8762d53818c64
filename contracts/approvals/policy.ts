/**
 * The approval policy every path that pays money out follows (DESIGN.md, decision 14): by kind, amount
 * bands in VND say how many distinct people must approve and which roles may, and daily caps bound what
 * one maker, and the merchant as a whole, may request in a day. Pure code: the API decides with it and
 * workflows carry what it decided; platform/approval-policy.ts reads it from APPROVAL_POLICY.
 */
export const APPROVAL_KINDS = ['disbursement', 'refund', 'remittance'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/** Roles that may be named as approvers (api/auth/roles.ts holds the full list; `viewer` never decides). */
export const APPROVER_ROLES = ['admin', 'payouts-approver', 'billing', 'remittance', 'payments'] as const;
export type ApproverRole = (typeof APPROVER_ROLES)[number];

export interface AmountBand {
  /** The band holds amounts from this many VND (inclusive) up to the next band's `fromVnd`. */
  fromVnd: number;
  /** Distinct people, other than the maker, who must approve. */
  approvers: number;
  /** Roles any one of which lets a person approve in this band (admin holds every role). */
  roles: ApproverRole[];
}

export interface KindPolicy {
  bands: AmountBand[];
  /** What one person may request of this kind in a day (Asia/Ho_Chi_Minh), not counting rejected or expired requests. */
  perMakerDailyVnd: number;
  /** What the merchant may request of this kind in a day, everyone together. */
  perMerchantDailyVnd: number;
}

export interface ApprovalPolicy {
  /** How long a request waits for its approvers before it expires (nothing is paid). */
  expiresAfterHours: number;
  kinds: Record<ApprovalKind, KindPolicy>;
  /**
   * Payout runs, weighed by their total. Apart from `kinds` because a run has its own life cycle (its
   * workflow waits for its decisions, PAYOUT_APPROVAL_TTL_HOURS bounds the wait) and always needs at least
   * one approver other than the uploader. A policy written before runs were under it reads the default.
   */
  payoutRun: KindPolicy;
}

/** What the policy asks of one request. */
export interface ApprovalRequirement {
  approvers: number;
  roles: ApproverRole[];
}

const twoBandsAbove = (roles: ApproverRole[]): KindPolicy['bands'] => [
  { fromVnd: 0, approvers: 0, roles },
  { fromVnd: 10_000_000, approvers: 1, roles },
  { fromVnd: 100_000_000, approvers: 2, roles },
];

/**
 * The default: below 10 million VND nobody else is needed, from 10 million one other person, from 100
 * million two; one person may request 500 million VND of a kind a day and the merchant 2 billion. No single
 * person can move 10 million VND or more alone.
 */
/**
 * Payout runs: one approver other than the uploader for any run (as before runs were under the policy), two
 * from a run total of 1 billion VND; one person may upload 20 billion VND of runs a day and the merchant 50
 * billion (a month of salaries for a few thousand people fits in a day's runs).
 */
export const DEFAULT_PAYOUT_RUN_POLICY: KindPolicy = {
  bands: [
    { fromVnd: 0, approvers: 1, roles: ['payouts-approver'] },
    { fromVnd: 1_000_000_000, approvers: 2, roles: ['payouts-approver'] },
  ],
  perMakerDailyVnd: 20_000_000_000,
  perMerchantDailyVnd: 50_000_000_000,
};

export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = {
  expiresAfterHours: 72,
  kinds: {
    disbursement: {
      bands: twoBandsAbove(['payouts-approver']),
      perMakerDailyVnd: 500_000_000,
      perMerchantDailyVnd: 2_000_000_000,
    },
    refund: {
      bands: twoBandsAbove(['payouts-approver']),
      perMakerDailyVnd: 500_000_000,
      perMerchantDailyVnd: 2_000_000_000,
    },
    remittance: {
      bands: twoBandsAbove(['payouts-approver']),
      perMakerDailyVnd: 500_000_000,
      perMerchantDailyVnd: 2_000_000_000,
    },
  },
  payoutRun: DEFAULT_PAYOUT_RUN_POLICY,
};

/** The band an amount falls in: the last whose lower bound it reaches. */
export function requirementFor(
  policy: ApprovalPolicy,
  kind: ApprovalKind,
  amountVnd: number,
): ApprovalRequirement {
  return requirementIn(policy.kinds[kind], amountVnd);
}

/** The band of one kind's policy an amount falls in (payout runs: `policy.payoutRun`). */
export function requirementIn(kindPolicy: KindPolicy, amountVnd: number): ApprovalRequirement {
  const bands = kindPolicy.bands;
  const band = [...bands].reverse().find((candidate) => amountVnd >= candidate.fromVnd) ?? bands[0]!;
  return { approvers: band.approvers, roles: [...band.roles] };
}
