/**
 * APPROVAL_POLICY: the approval policy (contracts/approvals/policy.ts) as JSON, checked field by field so a
 * process refuses to start on a policy it would misread. Unset: the documented default.
 */
import { z } from 'zod';
import { APPROVER_ROLES, DEFAULT_PAYOUT_RUN_POLICY, type ApprovalPolicy } from '../contracts/approvals';

/** api/http/errors.ts's marker of a rule the OpenAPI document cannot state (not imported: platform/ is below api/). */
const beyondSchema = (rule: string) => ({ beyondSchema: true, rule });

const vnd = z
  .number({ error: 'must be a number of VND' })
  .int('must be a whole number of VND')
  .min(0, 'must be 0 or more');

const bandSchema = z.strictObject({
  fromVnd: vnd,
  approvers: z
    .number()
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .max(5, 'must be 5 or fewer'),
  roles: z
    .array(z.enum(APPROVER_ROLES, { error: `must be one of ${APPROVER_ROLES.join(', ')}` }))
    .min(1, 'must name at least one role'),
});

const kindSchema = z
  .strictObject({
    bands: z.array(bandSchema).min(1, 'must hold at least one band'),
    perMakerDailyVnd: vnd.positive('must be above 0'),
    perMerchantDailyVnd: vnd.positive('must be above 0'),
  })
  .superRefine((kind, context) => {
    if (kind.bands[0] && kind.bands[0].fromVnd !== 0)
      context.addIssue({
        code: 'custom',
        path: ['bands', 0, 'fromVnd'],
        message: 'the first band must start at 0',
        params: beyondSchema('first_band_at_0'),
      });
    kind.bands.forEach((band, index) => {
      const before = kind.bands[index - 1];
      if (!before) return;
      if (band.fromVnd <= before.fromVnd)
        context.addIssue({
          code: 'custom',
          path: ['bands', index, 'fromVnd'],
          message: 'bands must rise: above the band before',
          params: beyondSchema('bands_rise'),
        });
      // A larger amount never needs fewer people than a smaller one.
      if (band.approvers < before.approvers)
        context.addIssue({
          code: 'custom',
          path: ['bands', index, 'approvers'],
          message: 'must be at least the band before’s',
          params: beyondSchema('approvers_never_fall'),
        });
    });
    if (kind.perMerchantDailyVnd < kind.perMakerDailyVnd)
      context.addIssue({
        code: 'custom',
        path: ['perMerchantDailyVnd'],
        message: 'must be at least perMakerDailyVnd',
        params: beyondSchema('merchant_cap_at_least_maker_cap'),
      });
  });

/**
 * The policy's shape and rules, as APPROVAL_POLICY and a proposal through the API (POST /v1/approval-policy)
 * are both checked. Rules across fields, which a JSON Schema cannot state, are marked so the API answers them
 * 422 with the rule's name (api/http/errors.ts `beyondSchema`, the same marker).
 */
export const approvalPolicySchema = z.strictObject({
  expiresAfterHours: z
    .number()
    .positive('must be above 0')
    .max(24 * 30, 'must be 720 hours or fewer'),
  kinds: z.strictObject({
    disbursement: kindSchema,
    refund: kindSchema,
    remittance: kindSchema,
  }),
  // A policy written before payout runs were under it (APPROVAL_POLICY, or a stored version) reads the default.
  payoutRun: kindSchema
    .superRefine((kind, context) => {
      if (kind.bands[0] && kind.bands[0].approvers < 1)
        context.addIssue({
          code: 'custom',
          path: ['bands', 0, 'approvers'],
          message: 'must be 1 or more: a payout run always waits for someone other than its uploader',
          params: beyondSchema('payout_run_needs_an_approver'),
        });
    })
    .default(DEFAULT_PAYOUT_RUN_POLICY),
});

/**
 * The policy a JSON text states, or every problem with it, each naming the field and the rule
 * (`kinds.refund.bands.1.approvers: must be at least the band before’s`).
 */
export function parseApprovalPolicy(text: string): { policy?: ApprovalPolicy; problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problems: [`not JSON: ${(error as Error).message}`] };
  }
  const { policy, problems } = checkApprovalPolicy(value);
  return {
    policy,
    problems: problems.map((problem) => `${problem.path || '(the policy)'}: ${problem.message}`),
  };
}

/**
 * The same checks on a policy already parsed (a proposal's body, a stored version): the policy, or every
 * problem as the field's path (`kinds.refund.bands.1.approvers`, '' for the whole policy) and the rule.
 */
export function checkApprovalPolicy(value: unknown): {
  policy?: ApprovalPolicy;
  problems: Array<{ path: string; code: string; message: string }>;
} {
  const parsed = approvalPolicySchema.safeParse(value);
  if (parsed.success) return { policy: parsed.data, problems: [] };
  return {
    problems: parsed.error.issues.map((issue) => ({
      path: issue.path.join('.'),
      code: issue.code,
      message: issue.message,
    })),
  };
}
