import { describe, expect, it } from 'vitest';
import * as workflows from '../../workflows';
import type { StartableWorkflowName, StartableWorkflows } from '../../workflows/workflow-definitions';

// Compile-time half: every name the API may start is registered by the worker with that signature.
const registered: StartableWorkflows = workflows;

/** Listing every startable name; an added or removed name without a change here fails to compile. */
const STARTABLE: Record<StartableWorkflowName, true> = {
  payoutRun: true,
  payoutBatch: true,
  disbursement: true,
  remittance: true,
  remittanceQuote: true,
  payment: true,
  refund: true,
  terminalSettlement: true,
  subscription: true,
  binding: true,
  deleteSavedMethod: true,
  tokenPayment: true,
  webhookEndpoint: true,
  webhookResend: true,
};

describe('the workflows a client can start', () => {
  it('are the ones the worker registers, apart from the dev self-check started by its function', () => {
    expect(Object.keys(workflows).sort()).toEqual([...Object.keys(STARTABLE), 'stackCheck'].sort());
    for (const name of Object.keys(STARTABLE))
      expect(typeof registered[name as StartableWorkflowName]).toBe('function');
  });
});
