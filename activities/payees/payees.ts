/**
 * The payee directory's one gateway step: the wallet check (disbursement/verify, checkWallet) of a payee
 * being saved or changed. It moves no money and creates nothing, so each attempt uses fresh lookup ids.
 */
import { refusesReceiverDetails, type GatewayClient } from '../../gateway';
import {
  plainCapitalName,
  type PayeeActivities,
  type PayeeCheckInput,
  type WalletCheckOutcome,
} from '../../contracts/payees';
import { askGateway, lookupId } from '../shared/gateway-calls';
import { bindActivities } from '../shared/bind';

export interface PayeeActivityDeps {
  gateway: GatewayClient;
}

export const createPayeeActivities = (deps: PayeeActivityDeps): PayeeActivities =>
  bindActivities(deps, { checkPayeeWallet });

/**
 * The name as given, then (when the wallet refused it for its details) in the plain capitals wallets
 * register names in: `Nguyễn Văn An` matches a wallet held by `NGUYEN VAN AN`. The gateway answers no
 * name, so a mismatch names none; a match names the form the wallet took.
 */
export async function checkPayeeWallet(
  { gateway }: PayeeActivityDeps,
  input: PayeeCheckInput,
): Promise<WalletCheckOutcome> {
  const given = input.name.trim();
  const forms = [...new Set([given, plainCapitalName(given)])];
  let last: { resultCode: number; message: string } | undefined;
  for (const name of forms) {
    const answer = await checkWallet(gateway, { ...input, name });
    if (answer.outcome === 'succeeded')
      return {
        nameCheck: 'match',
        registeredName: name,
        resultCode: answer.resultCode,
        message: answer.message,
      };
    last = answer;
    // The wallet cannot receive at all (inactive, restricted): another spelling of the name changes nothing.
    if (!refusesReceiverDetails(answer.resultCode)) break;
  }
  return {
    nameCheck: last && refusesReceiverDetails(last.resultCode) ? 'mismatch' : 'unchecked',
    registeredName: null,
    resultCode: last?.resultCode ?? null,
    message: last?.message ?? null,
  };
}

async function checkWallet(gateway: GatewayClient, input: PayeeCheckInput) {
  const id = lookupId('payee');
  return askGateway(gateway, 'disbursement.verify', {
    orderId: id,
    requestId: id,
    requestType: 'checkWallet',
    disbursementMethod: { walletId: input.walletId, walletName: input.name, personalId: input.personalId },
  });
}
