/** Remittances from USD and EUR balances, to wallets and bank accounts in Vietnam. */
import { describeAnswer, inPool, type DriveFailure, type WorkloadContext } from './context';

export interface RemittanceIntent {
  key: string;
  remittanceId?: string;
  foreignAmount: number;
}

export interface RemittancesDriven {
  remittances: RemittanceIntent[];
  failures: DriveFailure[];
}

const remittanceInfo = {
  name: 'John Smith',
  partnerName: 'Acme Remit',
  orderingCountry: 'US',
  reason: 'RSN05',
  senderNationality: 'US',
  senderDob: '15/08/1980',
  senderGender: 'Male',
  senderPersonalId: 'P1234567',
};

function bodyOf(index: number, foreignAmount: number) {
  const baseCurrency = index % 3 === 0 ? 'EUR' : 'USD';
  if (index % 2 === 0)
    return {
      requestType: 'remitToWallet',
      baseCurrency,
      foreignAmount,
      receiver: {
        walletId: `0966${String(index).padStart(4, '0')}55`,
        walletName: 'Tran Thi B',
        personalId: '012345678901',
      },
      remittanceInfo: {
        name: 'John Smith',
        partnerName: 'Acme Remit',
        orderingCountry: 'US',
        reason: 'RSN01',
      },
    };
  return {
    requestType: 'remitToBank',
    baseCurrency,
    foreignAmount,
    receiver: {
      bankAccountNo: `0123${String(index).padStart(4, '0')}55`,
      bankAccountHolderName: 'TRAN THI B',
      bankCode: '970436',
      nationality: 'VN',
      dob: '01/02/1990',
      gender: 'Female',
      personalId: '012345678901',
    },
    remittanceInfo,
  };
}

export async function driveRemittances(ctx: WorkloadContext, count: number): Promise<RemittancesDriven> {
  const failures: DriveFailure[] = [];
  const remittances: RemittanceIntent[] = Array.from({ length: count }, (_, index) => ({
    key: `${ctx.tag}-rem${index + 1}`,
    foreignAmount: 100 + index + 0.5,
  }));
  await inPool(remittances, 4, async (remittance, index) => {
    const created = await ctx.api.call(ctx.keys.remittance, 'POST', '/v1/remittances', {
      idempotencyKey: remittance.key,
      body: bodyOf(index, remittance.foreignAmount),
    });
    if (created.status !== 201) {
      failures.push({ id: remittance.key, step: 'create', detail: describeAnswer(created) });
      return;
    }
    remittance.remittanceId = created.body.remittanceId as string;
  });
  ctx.log(`${remittances.length} remittances created`);
  return { remittances, failures };
}
