import { describe, expect, it } from 'vitest';
import * as workflows from '../../workflows';
import {
  disbursementWorkflowId,
  disbursementDeskWorkflowId,
  merchantBalanceWorkflowId,
  payoutBatchWorkflowId,
  payoutRunWorkflowId,
} from '../../contracts/payouts';
import {
  paymentDeskWorkflowId,
  paymentWorkflowId,
  refundWorkflowId,
  terminalSettlementWorkflowId,
} from '../../contracts/payments';
import { remittanceQuoteWorkflowId, remittanceWorkflowId } from '../../contracts/remittances';
import {
  savedMethodBindingWorkflowId,
  savedMethodDeletionWorkflowId,
  savedMethodPaymentWorkflowId,
} from '../../contracts/saved-methods';
import { kindOf, type StartableWorkflowName, type StartableWorkflows } from '../../contracts/shared';
import { stackCheckWorkflowId } from '../../contracts/shared';
import {
  billingRunWorkflowId,
  planPriceChangeWorkflowId,
  subscriptionDeskWorkflowId,
  subscriptionNoticeWorkflowId,
  subscriptionWorkflowId,
} from '../../contracts/subscriptions';
import { webhookEndpointWorkflowId, webhookResendWorkflowId } from '../../contracts/events';
import { holdReleaseWorkflowId } from '../../contracts/holds';
import { payeeCheckWorkflowId } from '../../contracts/payees';
import { balanceWatchWorkflowId, recurringPayoutOccurrenceWorkflowId } from '../../contracts/payouts';

// Compile-time half: every name the API may start is registered by the worker with that signature.
const registered: StartableWorkflows = workflows;

/**
 * Every startable type with a workflow id made by its definitions file; an added or removed type without a
 * change here fails to compile.
 */
const ID_OF: Record<StartableWorkflowName, (id: string) => string> = {
  payoutRun: payoutRunWorkflowId,
  payoutBatch: payoutBatchWorkflowId,
  disbursement: disbursementWorkflowId,
  disbursementDesk: disbursementDeskWorkflowId,
  paymentDesk: paymentDeskWorkflowId,
  remittance: remittanceWorkflowId,
  remittanceQuote: remittanceQuoteWorkflowId,
  payment: paymentWorkflowId,
  refund: refundWorkflowId,
  terminalSettlement: terminalSettlementWorkflowId,
  subscription: subscriptionWorkflowId,
  subscriptionDesk: subscriptionDeskWorkflowId,
  subscriptionNotice: subscriptionNoticeWorkflowId,
  planPriceChange: planPriceChangeWorkflowId,
  billingRun: (day) => billingRunWorkflowId(day, 'payrun'),
  savedMethodBinding: savedMethodBindingWorkflowId,
  savedMethodDeletion: savedMethodDeletionWorkflowId,
  savedMethodPayment: savedMethodPaymentWorkflowId,
  webhookEndpoint: webhookEndpointWorkflowId,
  webhookResend: (id) => webhookResendWorkflowId(id, 'event', 'resend'),
  holdRelease: holdReleaseWorkflowId,
  payeeCheck: payeeCheckWorkflowId,
  balanceWatch: balanceWatchWorkflowId,
  merchantBalance: merchantBalanceWorkflowId,
  recurringPayoutOccurrence: recurringPayoutOccurrenceWorkflowId,
};

/** Types registered only for runs started under a former name, each with the type that replaced it. */
const FORMER_NAMES = {
  binding: 'savedMethodBinding',
  deleteSavedMethod: 'savedMethodDeletion',
  tokenPayment: 'savedMethodPayment',
} as const satisfies Record<string, StartableWorkflowName>;

describe('the workflows a client can start', () => {
  it('are the ones the worker registers, apart from the dev self-check and the former names', () => {
    expect(Object.keys(workflows).sort()).toEqual(
      [...Object.keys(ID_OF), 'stackCheck', ...Object.keys(FORMER_NAMES)].sort(),
    );
    for (const name of Object.keys(ID_OF))
      expect(typeof registered[name as StartableWorkflowName]).toBe('function');
  });

  it('have workflow ids that start with their type name in kebab case', () => {
    const prefixes = Object.entries(ID_OF).map(([name, idOf]) => [kindOf(name), idOf('x').split('/')[0]]);
    prefixes.push([kindOf('stackCheck'), stackCheckWorkflowId('x').split('/')[0]]);
    for (const [expected, actual] of prefixes) expect(actual).toBe(expected);
  });

  it('keep each former type name as the very workflow that replaced it', () => {
    const all = workflows as Record<string, unknown>;
    for (const [former, current] of Object.entries(FORMER_NAMES)) expect(all[former]).toBe(all[current]);
  });
});
