/**
 * Single disbursements to wallets, some to scenario receivers: pending that settles later (7000, told
 * by notification), refused (1008), "retry later" on the first attempt (0010).
 */
import { describeAnswer, inPool, type DriveFailure, type WorkloadContext } from './context';

export interface DisbursementIntent {
  disbursementId: string;
  amount: number;
  expected: 'succeeded' | 'failed';
}

export interface DisbursementsDriven {
  disbursements: DisbursementIntent[];
  failures: DriveFailure[];
}

const SCENARIOS = [
  { share: 0.1, lastFour: '7000', expected: 'succeeded' as const },
  { share: 0.1, lastFour: '1008', expected: 'failed' as const },
  { share: 0.1, lastFour: '0010', expected: 'succeeded' as const },
];

export async function driveDisbursements(ctx: WorkloadContext, count: number): Promise<DisbursementsDriven> {
  const failures: DriveFailure[] = [];
  const disbursements = Array.from({ length: count }, (_, index) => {
    let roll = ctx.random.next();
    const scenario = SCENARIOS.find((candidate) => (roll -= candidate.share) < 0);
    const serial = String(index).padStart(4, '0');
    return {
      disbursementId: `${ctx.tag}-d${index + 1}`,
      walletId: scenario ? `0977${serial}${scenario.lastFour}` : `0977${serial}55`,
      amount: 100_000 + index,
      expected: scenario?.expected ?? ('succeeded' as const),
    };
  });
  await inPool(disbursements, 6, async (item) => {
    const created = await ctx.api.call(ctx.keys.maker, 'POST', '/v1/disbursements', {
      idempotencyKey: `disburse-${item.disbursementId}`,
      body: {
        disbursementId: item.disbursementId,
        amount: item.amount,
        description: 'Chaos disbursement',
        wallet: { walletId: item.walletId, walletName: 'Chaos Receiver' },
      },
    });
    if (created.status !== 201)
      failures.push({ id: item.disbursementId, step: 'create', detail: describeAnswer(created) });
  });
  ctx.log(`${disbursements.length} disbursements created`);
  return {
    disbursements: disbursements.map(({ disbursementId, amount, expected }) => ({
      disbursementId,
      amount,
      expected,
    })),
    failures,
  };
}
