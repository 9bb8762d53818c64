/**
 * APPROVAL_POLICY: the approval policy (contracts/approvals/policy.ts) as JSON, checked field by field so a
 * process refuses to start on a policy it would misread. Unset: the documented default.
 */
import { z } from 'zod';
import { APPROVER_ROLES, type ApprovalPolicy } from '../contracts/approvals';

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
      });
    kind.bands.forEach((band, index) => {
      const before = kind.bands[index - 1];
      if (!before) return;
      if (band.fromVnd <= before.fromVnd)
        context.addIssue({
          code: 'custom',
          path: ['bands', index, 'fromVnd'],
          message: 'bands must rise: above the band before',
        });
      // A larger amount never needs fewer people than a smaller one.
      if (band.approvers < before.approvers)
        context.addIssue({
          code: 'custom',
          path: ['bands', index, 'approvers'],
          message: 'must be at least the band before’s',
        });
    });
    if (kind.perMerchantDailyVnd < kind.perMakerDailyVnd)
      context.addIssue({
        code: 'custom',
        path: ['perMerchantDailyVnd'],
        message: 'must be at least perMakerDailyVnd',
      });
  });

const policySchema = z.strictObject({
  expiresAfterHours: z
    .number()
    .positive('must be above 0')
    .max(24 * 30, 'must be 720 hours or fewer'),
  kinds: z.strictObject({
    disbursement: kindSchema,
    refund: kindSchema,
    remittance: kindSchema,
  }),
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
  const parsed = policySchema.safeParse(value);
  if (parsed.success) return { policy: parsed.data, problems: [] };
  return {
    problems: parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(the policy)'}: ${issue.message}`,
    ),
  };
}
