/**
 * The approval policy: the default lets nobody move a large amount alone, a configured policy is read
 * from APPROVAL_POLICY or the process refuses to start naming the field and the rule, and four eyes
 * compare people, not key names.
 */
import { describe, expect, it } from 'vitest';
import {
  APPROVAL_KINDS,
  DEFAULT_APPROVAL_POLICY,
  DEFAULT_PAYOUT_RUN_POLICY,
  requirementFor,
  requirementIn,
  type ApprovalPolicy,
} from '../../contracts/approvals';
import { isSamePerson } from '../../contracts/shared';
import { ConfigError, loadConfig } from '../../platform/config';

const withBands = (bands: unknown, caps = { perMakerDailyVnd: 100, perMerchantDailyVnd: 1000 }) => {
  const kind = { bands, ...caps };
  return JSON.stringify({
    expiresAfterHours: 24,
    kinds: { disbursement: kind, refund: kind, remittance: kind },
  });
};

const problemsOf = (text: string): string => {
  try {
    loadConfig({ APPROVAL_POLICY: text });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the policy was accepted');
};

describe('the default approval policy', () => {
  it('is what an unset APPROVAL_POLICY means', () => {
    expect(loadConfig({}).APPROVAL_POLICY).toEqual(DEFAULT_APPROVAL_POLICY);
  });

  it.each(APPROVAL_KINDS)(
    'lets nobody send 10 million VND or more of a %s alone, and two people above 100 million',
    (kind) => {
      expect(requirementFor(DEFAULT_APPROVAL_POLICY, kind, 9_999_999).approvers).toBe(0);
      expect(requirementFor(DEFAULT_APPROVAL_POLICY, kind, 10_000_000).approvers).toBe(1);
      expect(requirementFor(DEFAULT_APPROVAL_POLICY, kind, 99_999_999).approvers).toBe(1);
      expect(requirementFor(DEFAULT_APPROVAL_POLICY, kind, 100_000_000).approvers).toBe(2);
      expect(requirementFor(DEFAULT_APPROVAL_POLICY, kind, 200_000_000)).toEqual({
        approvers: 2,
        roles: ['payouts-approver'],
      });
    },
  );
});

describe('APPROVAL_POLICY', () => {
  it('reads a configured policy', () => {
    const text = withBands([
      { fromVnd: 0, approvers: 0, roles: ['payouts-approver'] },
      { fromVnd: 50, approvers: 2, roles: ['payouts-approver', 'payments'] },
    ]);
    const policy: ApprovalPolicy = loadConfig({ APPROVAL_POLICY: text }).APPROVAL_POLICY;
    expect(requirementFor(policy, 'refund', 49).approvers).toBe(0);
    expect(requirementFor(policy, 'refund', 50)).toEqual({
      approvers: 2,
      roles: ['payouts-approver', 'payments'],
    });
    expect(policy.kinds.refund.perMakerDailyVnd).toBe(100);
  });

  it('refuses a policy that breaks a rule, naming the field and the rule', () => {
    expect(problemsOf('{not json')).toMatch(/APPROVAL_POLICY: not JSON/);
    expect(problemsOf(withBands([{ fromVnd: 5, approvers: 0, roles: ['payouts-approver'] }]))).toContain(
      'kinds.disbursement.bands.0.fromVnd: the first band must start at 0',
    );
    const fewerAbove = withBands([
      { fromVnd: 0, approvers: 1, roles: ['payouts-approver'] },
      { fromVnd: 10, approvers: 0, roles: ['payouts-approver'] },
    ]);
    expect(problemsOf(fewerAbove)).toContain(
      'kinds.refund.bands.1.approvers: must be at least the band before’s',
    );
    const falling = withBands([
      { fromVnd: 0, approvers: 0, roles: ['payouts-approver'] },
      { fromVnd: 0, approvers: 1, roles: ['payouts-approver'] },
    ]);
    expect(problemsOf(falling)).toContain('kinds.remittance.bands.1.fromVnd: bands must rise');
    const viewer = withBands([{ fromVnd: 0, approvers: 1, roles: ['viewer'] }]);
    expect(problemsOf(viewer)).toMatch(/kinds\.disbursement\.bands\.0\.roles\.0: must be one of admin/);
    const merchantBelowMaker = withBands([{ fromVnd: 0, approvers: 0, roles: ['payouts-approver'] }], {
      perMakerDailyVnd: 100,
      perMerchantDailyVnd: 50,
    });
    expect(problemsOf(merchantBelowMaker)).toContain(
      'kinds.disbursement.perMerchantDailyVnd: must be at least perMakerDailyVnd',
    );
    expect(problemsOf(JSON.stringify({ expiresAfterHours: 0 }))).toMatch(
      /expiresAfterHours: must be above 0/,
    );
  });
});

describe('payout runs under the policy', () => {
  it('by default: one approver besides the uploader, two different people from 1 billion VND', () => {
    const runs = DEFAULT_APPROVAL_POLICY.payoutRun;
    expect(requirementIn(runs, 0).approvers).toBe(1);
    expect(requirementIn(runs, 999_999_999).approvers).toBe(1);
    expect(requirementIn(runs, 1_000_000_000)).toEqual({ approvers: 2, roles: ['payouts-approver'] });
    expect(runs.perMakerDailyVnd).toBe(20_000_000_000);
    expect(runs.perMerchantDailyVnd).toBe(50_000_000_000);
  });

  it('a policy written before runs were under it still loads, with the default for runs', () => {
    const old = withBands([{ fromVnd: 0, approvers: 0, roles: ['payouts-approver'] }]);
    expect(loadConfig({ APPROVAL_POLICY: old }).APPROVAL_POLICY.payoutRun).toEqual(DEFAULT_PAYOUT_RUN_POLICY);
  });

  it('refuses a run band that lets the uploader pay alone', () => {
    const policy = JSON.parse(withBands([{ fromVnd: 0, approvers: 0, roles: ['payouts-approver'] }]));
    policy.payoutRun = {
      ...DEFAULT_PAYOUT_RUN_POLICY,
      bands: [{ fromVnd: 0, approvers: 0, roles: ['admin'] }],
    };
    expect(problemsOf(JSON.stringify(policy))).toContain('payoutRun.bands.0.approvers: must be 1 or more');
  });
});

describe('four eyes are two people', () => {
  const maker = { keyId: 'key-1', name: 'Nguyễn Văn An' };

  it('counts two keys of one person, in any case, Unicode form or spacing, as one person', () => {
    expect(isSamePerson(maker, { keyId: 'key-2', name: 'NGUYỄN VĂN AN' })).toBe(true);
    expect(isSamePerson(maker, { keyId: 'key-2', name: 'Nguyễn Văn An'.normalize('NFD') })).toBe(true);
    expect(isSamePerson(maker, { keyId: 'key-2', name: ' Nguyễn  Văn\tAn ' })).toBe(true);
    expect(isSamePerson(maker, { keyId: 'key-1', name: 'renamed' })).toBe(true);
    expect(isSamePerson(maker, { keyId: 'key-2', name: 'Nguyễn Văn Anh' })).toBe(false);
  });
});
