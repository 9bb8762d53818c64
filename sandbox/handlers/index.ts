import { operationNames, type OperationName } from '../../gateway';
import type { HandlerTable } from '../handler';
import { batchHandlers } from './batch';
import { bindingHandlers } from './binding';
import { confirmHandlers } from './confirm';
import { disbursementHandlers } from './disbursement';
import { paymentHandlers } from './payments';
import { refundHandlers } from './refunds';
import { remittanceHandlers, withRemittanceQuery } from './remittance';
import { subscriptionHandlers } from './subscriptions';
import { tokenPayHandlers } from './token-pay';

/**
 * Every simulated operation, by name: one HandlerTable per domain, spread here; an operation added to
 * the table without a handler answers 99 "not simulated yet". `payment.query` also answers for
 * remittance orders (how payrun polls a late remittance result; see handlers/remittance.ts).
 */
export const handlers: HandlerTable = withRemittanceQuery({
  ...remittanceHandlers,
  ...disbursementHandlers,
  ...batchHandlers,
  ...paymentHandlers,
  ...confirmHandlers,
  ...refundHandlers,
  ...bindingHandlers,
  ...tokenPayHandlers,
  ...subscriptionHandlers,
});

export function simulatedOperations(): { simulated: OperationName[]; notSimulated: OperationName[] } {
  return {
    simulated: operationNames.filter((name) => handlers[name] !== undefined),
    notSimulated: operationNames.filter((name) => handlers[name] === undefined),
  };
}
