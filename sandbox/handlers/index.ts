import { operationNames, type OperationName } from '../../gateway';
import type { HandlerTable } from '../handler';
import { batchHandlers } from './batch';
import { disbursementHandlers } from './disbursement';
import { remittanceHandlers } from './remittance';

/**
 * Every simulated operation, by name. To simulate more of the table (documents 1 and 2), add a file
 * per domain (payments.ts, tokenization.ts, subscriptions.ts) exporting a HandlerTable and spread it
 * here; anything not listed answers 99 "not simulated yet".
 */
export const handlers: HandlerTable = {
  ...remittanceHandlers,
  ...disbursementHandlers,
  ...batchHandlers,
};

export function simulatedOperations(): { simulated: OperationName[]; notSimulated: OperationName[] } {
  return {
    simulated: operationNames.filter((name) => handlers[name] !== undefined),
    notSimulated: operationNames.filter((name) => handlers[name] === undefined),
  };
}
